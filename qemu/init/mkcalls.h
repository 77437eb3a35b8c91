/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The multikernel calls, as the test inits make them.  Each returns what
 * the system call did, with its errno, for EXPECT(); mk_tool() runs the
 * multikernel tool.
 */
#ifndef MKCALLS_H
#define MKCALLS_H

#include <fcntl.h>
#include <stdio.h>
#include <sys/wait.h>
#include <linux/kexec.h>
#include <linux/multikernel.h>
#include <linux/reboot.h>
#include <sys/syscall.h>
#include <unistd.h>

/* kexec_file_load() of the kernel at @path, without an initrd */
static long mk_file_load(const char *path,
			 const struct multikernel_load_args *args)
{
	int fd = open(path, O_RDONLY);
	long ret;

	ret = syscall(SYS_kexec_file_load, fd, -1, sizeof(*args), args,
		      KEXEC_FILE_MULTIKERNEL | KEXEC_FILE_NO_INITRAMFS);
	/* close() leaves errno alone when it succeeds */
	if (fd >= 0)
		close(fd);
	return ret;
}

static long mk_file_unload(unsigned int id)
{
	struct multikernel_load_args args = { .size = sizeof(args), .id = id };

	return syscall(SYS_kexec_file_load, -1, -1, sizeof(args), &args,
		       KEXEC_FILE_MULTIKERNEL | KEXEC_FILE_UNLOAD);
}

/* LINUX_REBOOT_CMD_MULTIKERNEL with @args as they are */
static long mk_start(const void *args)
{
	return syscall(SYS_reboot, LINUX_REBOOT_MAGIC1, LINUX_REBOOT_MAGIC2,
		       LINUX_REBOOT_CMD_MULTIKERNEL, args);
}

static long mk_start_instance(unsigned int id, int cpu)
{
	struct multikernel_start_args args = {
		.size = sizeof(args), .id = id, .cpu = cpu,
	};

	return mk_start(&args);
}

/* LINUX_REBOOT_CMD_MULTIKERNEL_STOP with @args as they are */
static long mk_stop(const void *args)
{
	return syscall(SYS_reboot, LINUX_REBOOT_MAGIC1, LINUX_REBOOT_MAGIC2,
		       LINUX_REBOOT_CMD_MULTIKERNEL_STOP, args);
}

/* Stop instance @id; *@result, if given, says how it stopped */
static long mk_stop_instance(unsigned int id, unsigned int flags,
			     unsigned int timeout_ms, unsigned int *result)
{
	struct multikernel_stop_args args = {
		.size = sizeof(args), .id = id, .flags = flags,
		.timeout_ms = timeout_ms,
	};
	long ret = mk_stop(&args);

	if (result)
		*result = args.result;
	return ret;
}

/* Run /bin/multikernel, shown as a command; its exit status, or -1 */
static int mk_tool(const char *const argv[])
{
	int i, status;
	pid_t pid;

	printf("$");
	for (i = 0; argv[i]; i++)
		printf(" %s", argv[i]);
	printf("\n");
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		execv("/bin/multikernel", (char *const *)argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

#endif /* MKCALLS_H */
