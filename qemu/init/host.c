// SPDX-License-Identifier: GPL-2.0
/*
 * Init of the host tests: the multikernel ABI as user space sees it.  The
 * kernel tree's selftest (tools/testing/selftests/multikernel, here
 * /multikernel_test) holds the tests; this init runs the ones each boot
 * is for, and adds what only a machine of its own may do.
 *
 *   mktest=mk     a CONFIG_MULTIKERNEL=y host booted with multikernel_pool=:
 *                 the whole selftest, then lockdown raised at run time
 *   mktest=fixed  the same with multikernel_pool=64M@512M and
 *                 mk_shared_memory=0x30000000 (and nokaslr)
 *   mktest=nopool CONFIG_MULTIKERNEL=y without multikernel_pool=
 *   mktest=nomk   a CONFIG_MULTIKERNEL=n kernel: none of it is there
 *   mktest=lockdown  the mk host booted with lockdown=integrity
 *   mktest=nosmt  the mk host on two cores of two threads, booted with
 *                 nosmt, on an Intel CPU the microcode loader takes
 *
 * Built static against the uapi headers of the tree under test.
 */
#define _GNU_SOURCE
#include <sys/wait.h>

#include "mktest.h"

#define SELFTEST	"/multikernel_test"

static unsigned long pool_start, pool_end;

/*
 * Run the selftest with @args (harness options such as -t NAME), each
 * result a PASS or FAIL line here, and @run, the run as a whole.  A test
 * may only skip if @may_skip names it: what this boot is for must run.
 */
static void run_selftest(const char *run, const char *const args[],
			 const char *const may_skip[])
{
	const char *argv[16] = { SELFTEST };
	int fds[2], status, planned = -1, seen = 0, argc = 1, i;
	char line[1024], name[256], *skip;
	bool allowed;
	FILE *out;
	pid_t pid;

	for (i = 0; args && args[i] && argc < 15; i++)
		argv[argc++] = args[i];
	if (pipe(fds)) {
		mk_result(run, 0, "pipe: %s", strerror(errno));
		return;
	}
	pid = fork();
	if (pid == 0) {
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		close(fds[0]);
		close(fds[1]);
		execv(SELFTEST, (char *const *)argv);
		printf("exec %s: %s\n", SELFTEST, strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	out = fdopen(fds[0], "r");
	while (out && fgets(line, sizeof(line), out)) {
		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "1..%d", &planned) == 1)
			continue;
		if (sscanf(line, "ok %*d %255s", name) == 1) {
			seen++;
			skip = strstr(line, " # SKIP");
			if (!skip) {
				mk_result(name, 1, "");
				continue;
			}
			allowed = false;
			for (i = 0; may_skip && may_skip[i]; i++)
				allowed |= !strcmp(name, may_skip[i]);
			if (allowed)
				printf("MKTEST: skipped %s:%s\n", name,
				       skip + 7);
			else
				mk_result(name, 0, "skipped:%s", skip + 7);
		} else if (sscanf(line, "not ok %*d %255s", name) == 1) {
			seen++;
			mk_result(name, 0, "see the selftest's lines above");
		} else {
			/* Its diagnostics, for the console log */
			printf("selftest: %s\n", line);
		}
	}
	if (out)
		fclose(out);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		status = -1;
	mk_result(run, planned > 0 && seen == planned &&
		  WIFEXITED(status),
		  "%d of %d results, status %#x", seen, planned, status);
}

/* Mount securityfs; the lockdown mode as its file shows it, or NULL */
static char *lockdown_state(void)
{
	mkdir("/sys/kernel/security", 0755);
	mount("securityfs", "/sys/kernel/security", "securityfs", 0, NULL);
	return mk_read_file("/sys/kernel/security/lockdown");
}

/*
 * Lockdown raised at run time: nothing is loaded or started any more,
 * not even an instance loaded before.  Stopping and unloading only take
 * away and get through.  Lockdown stays: this comes last.
 */
static void test_lockdown_raised(void)
{
	static const char *const locked_down[] = { "-t", "locked_down", NULL };

	EXPECT("lockdown_load_before",
	       mk_load_halting(5, pool_start + 32 * MK_SZ_1M, MK_SZ_2M), 0,
	       "instance 5 loaded");
	EXPECT_SILENT("cpu2_offline",
		      mk_write_file("/sys/devices/system/cpu/cpu2/online", "0"),
		      0);
	mk_result("lockdown_raised",
		  !mk_write_file("/sys/kernel/security/lockdown", "integrity"),
		  "cannot raise lockdown: %s", strerror(errno));
	EXPECT("lockdown_start_refused", mk_start_instance(5, 2), EPERM,
	       "start: refused: the kernel is locked down");
	EXPECT("lockdown_stop_allowed", mk_stop_instance(5, 0, 0, NULL), ESRCH,
	       "stop: instance 5 is loaded");
	EXPECT("lockdown_unload_allowed", mk_file_unload(5), 0,
	       "instance 5 unloaded");
	run_selftest("selftest_after_lockdown", locked_down, NULL);
}

static void test_mk(void)
{
	static const char *const may_skip[] = {
		"global.no_pool", "global.locked_down", NULL
	};

	lockdown_state();
	run_selftest("selftest", NULL, may_skip);
	mk_check_kmemleak();
	if (mk_find_pool(&pool_start, &pool_end)) {
		mk_result("pool_found", 0, "the lockdown test needs the pool");
		return;
	}
	test_lockdown_raised();
}

/* Booted with lockdown=integrity: no instance is loaded or started */
static void test_lockdown_boot(void)
{
	static const char *const args[] = {
		"-t", "reservation", "-t", "locked_down", NULL
	};
	char *state = lockdown_state();

	mk_result("lockdown_at_boot", state && strstr(state, "[integrity]"),
		  "lockdown is %s", state ? state : "unknown");
	run_selftest("selftest", args, NULL);
}

/* The first CPU in sysfs list @file (such as "offline") other than 0 */
static int first_cpu_in(const char *file)
{
	char path[64], *list, *p;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/%s", file);
	list = mk_read_file(path);
	for (p = list; p && *p; p += strcspn(p, ",-"), p += !!*p) {
		int cpu = atoi(p);

		if (cpu > 0)
			return cpu;
	}
	return -1;
}

/*
 * Two cores of two threads, booted with nosmt: the second threads stay
 * offline, and no instance may run on one, while a first thread the host
 * gave up is fine.
 */
static void test_nosmt(void)
{
	char *control = mk_read_file("/sys/devices/system/cpu/smt/control");
	int sibling, primary;
	char path[64];

	/* Before mk_read_file() is called again */
	mk_result("nosmt_control_off", control && !strncmp(control, "off", 3),
		  "smt/control is %s", control ? control : "missing");
	sibling = first_cpu_in("offline");
	if (mk_find_pool(&pool_start, &pool_end) || sibling < 0) {
		mk_result("nosmt_setup", 0, "no pool, or no offline thread");
		return;
	}
	EXPECT("nosmt_load", mk_load_halting(1, pool_start, MK_SZ_2M), 0,
	       "instance 1 loaded");
	EXPECT("nosmt_start_on_second_thread", mk_start_instance(1, sibling), EPERM,
	       "is a thread SMT control keeps offline");
	primary = first_cpu_in("online");
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online",
		 primary);
	EXPECT_SILENT("nosmt_offline_first_thread", mk_write_file(path, "0"),
		      0);
	EXPECT("nosmt_start_on_first_thread", mk_start_instance(1, primary), 0,
	       "started on CPU");

	/*
	 * With SMT control on again, an instance may run on a second
	 * thread; turning it off and on again then skips that thread
	 * instead of failing on it.
	 */
	EXPECT_SILENT("smt_control_on",
		      mk_write_file("/sys/devices/system/cpu/smt/control", "on"),
		      0);
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online",
		 sibling);
	EXPECT_SILENT("smt_offline_second_thread", mk_write_file(path, "0"),
		      0);
	EXPECT("smt_load_second",
	       mk_load_halting(2, pool_start + 4 * MK_SZ_1M, MK_SZ_2M), 0,
	       "instance 2 loaded");
	EXPECT("smt_start_on_second_thread", mk_start_instance(2, sibling), 0,
	       "instance 2 started on CPU");
	EXPECT_SILENT("smt_control_off",
		      mk_write_file("/sys/devices/system/cpu/smt/control",
				    "off"), 0);
	EXPECT_SILENT("smt_control_on_skips_instance",
		      mk_write_file("/sys/devices/system/cpu/smt/control", "on"),
		      0);
	control = mk_read_file(path);
	mk_result("smt_instance_thread_still_offline",
		  control && control[0] == '0', "%s reads %s", path,
		  control ? control : "nothing");

	/*
	 * Late microcode loading would NMI the instances' CPUs as offline
	 * ones, or update their cores under them.  The loader's own check
	 * refuses an offline first thread, with its own line.
	 */
	EXPECT("microcode_late_load_refused",
	       mk_write_file("/sys/devices/system/cpu/microcode/reload", "1"),
	       EBUSY, "Multikernel instances run, loading aborted");
}

/* The pool and the shared area where the command line put them */
static void test_fixed(void)
{
	static const char *const args[] = {
		"-t", "reservation", "-t", "load_listed", "-t", "load_refusals",
		NULL
	};

	run_selftest("selftest", args, NULL);
}

/* CONFIG_MULTIKERNEL=y, no multikernel_pool=: nothing to load into */
static void test_nopool(void)
{
	static const char *const args[] = {
		"-t", "reservation", "-t", "no_pool", NULL
	};

	run_selftest("selftest", args, NULL);
}

/* CONFIG_MULTIKERNEL=n: no file, no flag, no command, no memory. */
static void test_nomk(void)
{
	char *iomem = mk_read_file("/proc/iomem");

	mk_result("no_proc_multikernel", access("/proc/multikernel", F_OK),
		  "/proc/multikernel exists");
	mk_result("no_multikernel_memory", iomem && !strstr(iomem, "Multikernel"),
		  "/proc/iomem mentions Multikernel");
	EXPECT_SILENT("kexec_flag_refused",
		      mk_load_halting(1, 0x10000000, MK_SZ_1M),
		      EINVAL);
	EXPECT_SILENT("reboot_command_refused", mk_start_instance(1, 1), EINVAL);
}

int main(void)
{
	const char *mode = getenv("mktest");

	mk_mount_basics();
	printf("MKTEST: START host tests, mode %s\n", mode ? mode : "(none)");
	if (mode && !strcmp(mode, "mk"))
		test_mk();
	else if (mode && !strcmp(mode, "nomk"))
		test_nomk();
	else if (mode && !strcmp(mode, "fixed"))
		test_fixed();
	else if (mode && !strcmp(mode, "nopool"))
		test_nopool();
	else if (mode && !strcmp(mode, "lockdown"))
		test_lockdown_boot();
	else if (mode && !strcmp(mode, "nosmt"))
		test_nosmt();
	else
		mk_result("mode", 0,
			  "boot with mktest=mk, fixed, nopool, nomk, lockdown or nosmt");
	mk_done();
}
