/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the static inits of the QEMU tests: results as
 *
 *   MKTEST: PASS name
 *   MKTEST: FAIL name: what went wrong
 *   MKTEST: DONE N passed, M failed
 *
 * on the console, for people, and on the third serial port (ttyS2), which
 * qemu/run.sh reads back: there no kernel message can cut into a line.
 */
#ifndef MKTEST_H
#define MKTEST_H

#ifndef _GNU_SOURCE
#error "define _GNU_SOURCE before the first #include (CPU affinity)"
#endif

#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/io.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The calls and the image of tools/testing/selftests/multikernel */
#include "multikernel.h"

static int mk_passed, mk_failed;
static FILE *mk_results;

/* One result line, on the console and on the results port */
static void mk_report(const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fputs(line, stdout);
	fflush(stdout);
	if (mk_results) {
		fputs(line, mk_results);
		fflush(mk_results);
	}
}

static void mk_result(const char *name, int ok, const char *fmt, ...)
{
	char why[768];
	va_list ap;

	if (ok) {
		mk_report("MKTEST: PASS %s\n", name);
		mk_passed++;
	} else {
		va_start(ap, fmt);
		vsnprintf(why, sizeof(why), fmt, ap);
		va_end(ap);
		mk_report("MKTEST: FAIL %s: %s\n", name, why);
		mk_failed++;
	}
}

/* Expect a call to have returned ret == -1 with errno == err (or 0). */
static void mk_expect_errno(const char *name, long ret, int saved_errno,
			    int err)
{
	if (!err)
		mk_result(name, ret == 0, "returned %ld (%s), expected success",
			  ret, strerror(saved_errno));
	else
		mk_result(name, ret == -1 && saved_errno == err,
			  "returned %ld (%s), expected %s", ret,
			  ret == -1 ? strerror(saved_errno) : "no error",
			  strerror(err));
}

/*
 * As mk_expect_errno(), and the kernel's log must say what happened: a new
 * record holding @text (EXPECT), such as the reason for a refusal.
 * EXPECT_SILENT is for what the kernel does without a word, as for a bad
 * pointer or a missing capability: there a new record naming
 * "multikernel" is a failure.  The refusals are pr_*_ratelimited(), 10
 * per 5 s per call site: many more of one kind in a row would go unlogged
 * and fail here.
 */
static void mk_expect_logged(const char *name, long ret, int saved_errno,
			     int err, const char *text)
{
	int logged = mk_kmsg_logged(text ? text : "multikernel");
	int as_expected = err ? ret == -1 && saved_errno == err : ret == 0;

	if (!as_expected)
		mk_expect_errno(name, ret, saved_errno, err);
	else if (logged < 0)
		mk_result(name, 0, "cannot read /dev/kmsg: %s",
			  strerror(errno));
	else if (text && !logged)
		mk_result(name, 0, "%s, but the kernel logged no \"%s\"",
			  err ? strerror(err) : "succeeded", text);
	else if (!text && logged)
		mk_result(name, 0, "the kernel logged a multikernel line");
	else
		mk_result(name, 1, "");
}

/* Whether the kernel logs @text, since the mark, within @secs seconds */
static bool mk_logged_within(const char *text, int secs)
{
	int i;

	for (i = 0; i < secs * 10; i++) {
		if (mk_kmsg_logged(text) > 0)
			return true;
		usleep(100000);
	}
	return false;
}

#define EXPECT(name, call, err, text) do {				\
	long __ret;							\
	int __errno;							\
									\
	mk_kmsg_mark();							\
	__ret = (call);							\
	__errno = errno;						\
	mk_expect_logged(name, __ret, __errno, err, text);		\
} while (0)
#define EXPECT_SILENT(name, call, err)	EXPECT(name, call, err, NULL)

/*
 * Leave a marker in qemu/spawn.sh's trace of device accesses: 'M', then
 * what, written to port 0x80 (the POST port; nothing listens).
 * 0, or -1 with errno set.
 */
static int mk_trace_marker(char what)
{
	int cpu = sched_getcpu(), ret = -1;
	cpu_set_t old, here;

	/* Both bytes from one CPU: the trace pairs them per CPU */
	if (cpu < 0)
		return -1;
	CPU_ZERO(&here);
	CPU_SET(cpu, &here);
	if (sched_getaffinity(0, sizeof(old), &old) ||
	    sched_setaffinity(0, sizeof(here), &here))
		return -1;
	if (!ioperm(0x80, 1, 1)) {
		outb('M', 0x80);
		outb(what, 0x80);
		ret = ioperm(0x80, 1, 0);
	}
	sched_setaffinity(0, sizeof(old), &old);
	return ret;
}

/*
 * Run /bin/multikernel, shown as a command; its exit status, or -1.
 * posix_spawn(), not fork(): an init holding hundreds of MiB (spawn.c's
 * pattern) would otherwise copy its page tables first, which make bench
 * would count as the tool's time.
 */
static int mk_tool_to(const char *const argv[], const char *err_file)
{
	posix_spawn_file_actions_t fa;
	extern char **environ;
	int i, status, ret;
	pid_t pid;

	printf("$");
	for (i = 0; argv[i]; i++)
		printf(" %s", argv[i]);
	printf(err_file ? " 2> %s\n" : "\n", err_file);
	fflush(stdout);
	if (posix_spawn_file_actions_init(&fa))
		return -1;
	if (err_file &&
	    posix_spawn_file_actions_addopen(&fa, 2, err_file,
					     O_WRONLY | O_CREAT | O_TRUNC,
					     0644)) {
		posix_spawn_file_actions_destroy(&fa);
		return -1;
	}
	ret = posix_spawn(&pid, "/bin/multikernel", &fa, NULL,
			  (char *const *)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (ret || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static int mk_tool(const char *const argv[])
{
	return mk_tool_to(argv, NULL);
}

static void mk_mount_basics(void)
{
	mkdir("/proc", 0755);
	mkdir("/sys", 0755);
	mkdir("/dev", 0755);
	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	mk_results = fopen("/dev/ttyS2", "w");
	if (!mk_results)
		printf("MKTEST: no results port /dev/ttyS2: %s\n",
		       strerror(errno));
}

/* With CONFIG_DEBUG_KMEMLEAK, nothing the tests did may leak. */
static void mk_check_kmemleak(void)
{
	char *report;

	mkdir("/sys/kernel/debug", 0755);
	if (access("/sys/kernel/debug/kmemleak", F_OK) &&
	    (mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL) ||
	     access("/sys/kernel/debug/kmemleak", F_OK))) {
		/* The host tests run on the debug kernel, which has it */
		mk_result("kmemleak_clean", 0, "no kmemleak: %s",
			  strerror(errno));
		return;
	}
	/* kmemleak reports only objects older than 5 s */
	sleep(6);
	mk_write_file("/sys/kernel/debug/kmemleak", "scan");
	mk_write_file("/sys/kernel/debug/kmemleak", "scan");
	report = mk_read_file("/sys/kernel/debug/kmemleak");
	mk_result("kmemleak_clean", report && !strstr(report, "unreferenced"),
		  "%s", report ? report : "cannot read kmemleak");
}

/* Whether instance @id is @want within @ms */
static bool mk_wait_state(unsigned int id, const char *want, int ms)
{
	for (; strcmp(mk_state_of(id), want); ms -= 20) {
		if (ms <= 0)
			return false;
		usleep(20000);
	}
	return true;
}

/* __START_KERNEL_map: PT_LOADs from here up are the kernel text alias */
#define MK_KERNEL_TEXT_MAP	0xffffffff80000000ULL
#define MK_VMCORE_MAX_PH	256

/*
 * The program headers of /proc/vmcore, a 64-bit ELF core file, into @ph
 * (MK_VMCORE_MAX_PH of them): how many, or -1
 */
static int mk_vmcore_headers(Elf64_Phdr *ph)
{
	int fd = open("/proc/vmcore", O_RDONLY | O_CLOEXEC), n = -1;
	Elf64_Ehdr eh;

	if (fd < 0)
		return -1;
	if (pread(fd, &eh, sizeof(eh), 0) == sizeof(eh) &&
	    !memcmp(eh.e_ident, ELFMAG, SELFMAG) &&
	    eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_type == ET_CORE &&
	    eh.e_phentsize == sizeof(Elf64_Phdr) && eh.e_phnum &&
	    eh.e_phnum <= MK_VMCORE_MAX_PH &&
	    pread(fd, ph, eh.e_phnum * sizeof(Elf64_Phdr), eh.e_phoff) ==
	    (ssize_t)(eh.e_phnum * sizeof(Elf64_Phdr)))
		n = eh.e_phnum;
	close(fd);
	return n;
}

/* Whether a RAM PT_LOAD of the @n headers @ph holds any of @start-@end */
static bool mk_vmcore_holds(const Elf64_Phdr *ph, int n,
			    unsigned long long start, unsigned long long end)
{
	int i;

	for (i = 0; i < n; i++)
		if (ph[i].p_type == PT_LOAD &&
		    ph[i].p_vaddr < MK_KERNEL_TEXT_MAP &&
		    ph[i].p_paddr <= end &&
		    start < ph[i].p_paddr + ph[i].p_memsz)
			return true;
	return false;
}

/*
 * The first /proc/iomem line named @name or, with @name NULL, the first
 * top-level line that holds @addr: its range, and its name in @found (of
 * @size bytes, may be NULL).  Return: 0, or -1 if there is none.
 */
static int mk_iomem_find(const char *name, unsigned long addr,
			 unsigned long *start, unsigned long *end,
			 char *found, size_t size)
{
	char *iomem = mk_read_file("/proc/iomem"), *line, *save, *colon;

	for (line = iomem ? strtok_r(iomem, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		colon = strstr(line, " : ");
		if (!colon || sscanf(line, " %lx-%lx", start, end) != 2)
			continue;
		if (name ? !strcmp(colon + 3, name) :
		    line[0] != ' ' && *start <= addr && addr <= *end) {
			if (found)
				snprintf(found, size, "%s", colon + 3);
			return 0;
		}
	}
	return -1;
}

/* The /proc/iomem range named @name as "START-END" (hex), or "none" */
static void mk_iomem_range(const char *name, char *buf, size_t size)
{
	unsigned long start, end;

	if (mk_iomem_find(name, 0, &start, &end, NULL, 0))
		snprintf(buf, size, "none");
	else
		snprintf(buf, size, "%lx-%lx", start, end);
}

/* Whether instance @id's echo service (qemu/init/instance.c) answers */
static bool mk_echoes(unsigned int id)
{
	struct multikernel_msg msg = { .peer = id, .type = 1, .len = 4 };
	struct pollfd pfd = { .events = POLLIN };
	bool ok = false;

	pfd.fd = open("/dev/multikernel", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (pfd.fd < 0)
		return false;
	if (write(pfd.fd, &msg, MULTIKERNEL_MSG_HDR_SIZE + msg.len) >= 0)
		while (!ok && poll(&pfd, 1, 10000) > 0)
			ok = read(pfd.fd, &msg, sizeof(msg)) > 0 &&
			     msg.peer == id;
	close(pfd.fd);
	return ok;
}

/*
 * A child that runs busybox's /bin/sh on @tty, its controlling terminal,
 * with prompt @prompt; its pid, or -1.
 */
static pid_t mk_spawn_shell(const char *tty, const char *prompt)
{
	pid_t pid = fork();
	int fd;

	if (pid)
		return pid;
	setsid();
	fd = open(tty, O_RDWR);
	if (fd < 0 || ioctl(fd, TIOCSCTTY, 0)) {
		printf("MKTEST: shell: %s: %s\n", tty, strerror(errno));
		_exit(127);
	}
	dup2(fd, 0);
	dup2(fd, 1);
	dup2(fd, 2);
	setenv("PS1", prompt, 1);
	setenv("PATH", "/bin", 1);
	execl("/bin/sh", "sh", NULL);
	_exit(127);
}

/* Print the closing line */
static void mk_finish(void)
{
	mk_report("MKTEST: DONE %d passed, %d failed\n", mk_passed, mk_failed);
	sync();
}

/* Print the closing line and leave: QEMU runs with -no-reboot. */
static void __attribute__((noreturn)) mk_done(void)
{
	mk_finish();
	reboot(RB_AUTOBOOT);
	for (;;)
		pause();
}

#endif /* MKTEST_H */
