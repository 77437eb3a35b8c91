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
 *                 multikernel_shared_memory=0x30000000 (and nokaslr)
 *   mktest=nopool CONFIG_MULTIKERNEL=y without multikernel_pool=
 *   mktest=nomk   a CONFIG_MULTIKERNEL=n kernel: none of it is there, and
 *                 the selftest skips
 *   mktest=lockdown  the mk host booted with lockdown=integrity and
 *                 multikernel_shared_memory=0x30000000, the start of a
 *                 memory section the pool would take first in 1 GiB
 *   mktest=nosmt  the mk host on two cores of two threads, booted with
 *                 nosmt, on an Intel CPU the microcode loader takes
 *
 * Built static against the uapi headers of the tree under test.
 */
#define _GNU_SOURCE
#include <sys/wait.h>

#include "mktest.h"

#define SELFTEST	"/multikernel_test"
#define CPU_ONLINE(n)	"/sys/devices/system/cpu/cpu" #n "/online"

static unsigned long pool_start, pool_end;

/* Which of the selftest's results a boot takes as passes */
enum skips {
	SKIP_NONE,	/* every test runs */
	SKIP_LISTED,	/* but those named in may_skip */
	SKIP_ALL,	/* none runs: a kernel without the feature */
};

/* Whether @name, "fixture[.variant].test", is one of @tests */
static bool named(const char *name, const char *const tests[])
{
	size_t len = strlen(name);
	int i;

	for (i = 0; tests && tests[i]; i++) {
		size_t tlen = strlen(tests[i]);

		if (!strcmp(name, tests[i]) ||
		    (len > tlen && name[len - tlen - 1] == '.' &&
		     !strcmp(name + len - tlen, tests[i])))
			return true;
	}
	return false;
}

/*
 * Run the selftest: only @tests (test names; NULL: all of them), each
 * result a PASS or FAIL line here, with the selftest's last diagnostic
 * for a failure, and @run for the run as a whole: every test asked for
 * ran, the plan was met and the selftest exited 0.  What a test may skip
 * @skips says; a directive other than SKIP (XFAIL, XPASS) is a failure.
 */
static void run_selftest(const char *run, const char *const tests[],
			 enum skips skips, const char *const may_skip[])
{
	int fds[2], status, planned = -1, seen = 0, argc = 1, i;
	char line[1024], name[256], last[256] = "", *dir;
	bool found[18] = { false };
	const char *argv[40] = { SELFTEST };
	FILE *out;
	pid_t pid;

	for (i = 0; tests && tests[i] && argc < 38; i++) {
		argv[argc++] = "-t";
		argv[argc++] = tests[i];
	}
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
		bool ok = !strncmp(line, "ok ", 3);

		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "1..%d", &planned) == 1)
			continue;
		if (!ok && strncmp(line, "not ok ", 7)) {
			/* Diagnostics, for the console log */
			printf("selftest: %s\n", line);
			if (strstr(line, "multikernel_test.c:") ||
			    strstr(line, "Test terminated"))
				snprintf(last, sizeof(last), "%.200s", line + 2);
			continue;
		}
		/* "ok N NAME[ # DIRECTIVE]", "not ok N NAME[ # ...]" */
		dir = strstr(line, " # ");
		if (dir)
			*dir = '\0';
		if (sscanf(line + (ok ? 3 : 7), "%*d %255[^\n]", name) != 1)
			snprintf(name, sizeof(name), "%s", "unnamed");
		seen++;
		for (i = 0; tests && tests[i] && i < 18; i++)
			found[i] |= named(name, (const char *const[]){
						tests[i], NULL });
		if (!ok)
			mk_result(name, 0, "%s", *last ? last : "failed");
		else if (dir && !strncmp(dir + 3, "SKIP", 4) &&
			 (skips == SKIP_ALL ||
			  (skips == SKIP_LISTED && named(name, may_skip))))
			printf("MKTEST: skipped %s: %s\n", name, dir + 3);
		else if (dir)
			mk_result(name, 0, "%s", dir + 3);
		else
			mk_result(name, skips != SKIP_ALL,
				  "ran on a kernel without the feature");
		last[0] = '\0';
	}
	if (out)
		fclose(out);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		status = -1;
	for (i = 0; tests && tests[i] && i < 18; i++)
		if (!found[i])
			mk_result(run, 0, "no test %s", tests[i]);
	mk_result(run, planned > 0 && seen == planned &&
		  WIFEXITED(status) && !WEXITSTATUS(status),
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
	static const char *const locked_down[] = { "locked_down", NULL };

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
	run_selftest("selftest_after_lockdown", locked_down, SKIP_NONE, NULL);
}

static void test_mk(void)
{
	static const char *const may_skip[] = {
		"global.no_pool", "global.locked_down", NULL
	};

	lockdown_state();
	run_selftest("selftest", NULL, SKIP_LISTED, may_skip);
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
	static const char *const tests[] = {
		"reservation", "locked_down", NULL
	};
	char *state = lockdown_state();

	mk_result("lockdown_at_boot", state && strstr(state, "[integrity]"),
		  "lockdown is %s", state ? state : "unknown");
	run_selftest("selftest", tests, SKIP_NONE, NULL);
}

/*
 * Two cores of two threads (CPUs 0 and 1, 2 and 3), booted with nosmt:
 * the second threads stay offline, and no instance may run on one, while
 * a first thread the host gave up is fine.  An instance has whole cores:
 * a thread of its core it does not run on stays offline while it runs,
 * also when SMT control is turned on, and a start while such a thread is
 * online is refused.
 */
static void test_nosmt(void)
{
	char *control = mk_read_file("/sys/devices/system/cpu/smt/control");
	char *offline;

	/* Before mk_read_file() is called again */
	mk_result("nosmt_control_off", control && !strncmp(control, "off", 3),
		  "smt/control is %s", control ? control : "missing");
	/* mk_read_file() has one buffer: the pool's lookup first */
	if (mk_find_pool(&pool_start, &pool_end))
		offline = NULL;
	else
		offline = mk_read_file("/sys/devices/system/cpu/offline");
	if (!offline || strcmp(offline, "1,3\n")) {
		mk_result("nosmt_setup", 0, "no pool, or offline CPUs %s, not 1,3",
			  offline ? offline : "unknown");
		return;
	}
	EXPECT("nosmt_load", mk_load_halting(1, pool_start, MK_SZ_2M), 0,
	       "instance 1 loaded");
	EXPECT("nosmt_start_on_second_thread", mk_start_instance(1, 1), EPERM,
	       "is a thread SMT control keeps offline");
	EXPECT_SILENT("nosmt_offline_first_thread",
		      mk_write_file(CPU_ONLINE(2), "0"), 0);
	EXPECT("nosmt_start_on_first_thread", mk_start_instance(1, 2), 0,
	       "started on CPU");
	control = mk_read_file("/sys/kernel/multikernel/instances/1/idle_cpus");
	mk_result("idle_cpus_listed", control && !strcmp(control, "3\n"),
		  "instance 1's idle_cpus: %s", control ? control : "missing");

	/* SMT control on brings CPU 1 up, not CPU 3: instance 1 has its core */
	EXPECT_SILENT("smt_control_on",
		      mk_write_file("/sys/devices/system/cpu/smt/control", "on"),
		      0);
	control = mk_read_file(CPU_ONLINE(3));
	mk_result("smt_on_skips_instance_core",
		  control && control[0] == '0', "CPU 3 online reads %s",
		  control ? control : "nothing");
	EXPECT("online_instance_core_refused", mk_write_file(CPU_ONLINE(3), "1"),
	       EPERM, "CPU 3 runs a multikernel instance");

	/*
	 * Late microcode loading would NMI the instances' CPUs as offline
	 * ones, or update their cores under them.  The loader's own check
	 * refuses an offline first thread, with its own line.
	 */
	EXPECT("microcode_late_load_refused",
	       mk_write_file("/sys/devices/system/cpu/microcode/reload", "1"),
	       EBUSY, "Multikernel instances run, loading aborted");

	/*
	 * With SMT control on, an instance may run on a second thread whose
	 * first thread is offline, not beside one the host runs; turning
	 * SMT control off and on again then skips both threads instead of
	 * failing on them.
	 */
	EXPECT("stop_first_thread_instance",
	       mk_stop_instance(1, MULTIKERNEL_STOP_FORCE, 0, NULL), 0,
	       "stopped, CPU 2 is free");
	EXPECT_SILENT("online_first_thread", mk_write_file(CPU_ONLINE(2), "1"),
		      0);
	EXPECT("smt_load_second",
	       mk_load_halting(2, pool_start + 4 * MK_SZ_1M, MK_SZ_2M), 0,
	       "instance 2 loaded");
	EXPECT("smt_start_beside_host_thread", mk_start_instance(2, 3), EXDEV,
	       "start: CPU 2 shares a core with instance 2's CPUs and is online");
	EXPECT_SILENT("smt_offline_first_thread",
		      mk_write_file(CPU_ONLINE(2), "0"), 0);
	EXPECT("smt_start_on_second_thread", mk_start_instance(2, 3), 0,
	       "instance 2 started on CPU");
	EXPECT_SILENT("smt_control_off",
		      mk_write_file("/sys/devices/system/cpu/smt/control",
				    "off"), 0);
	EXPECT_SILENT("smt_control_on_skips_instance",
		      mk_write_file("/sys/devices/system/cpu/smt/control", "on"),
		      0);
	control = mk_read_file(CPU_ONLINE(3));
	mk_result("smt_instance_thread_still_offline",
		  control && control[0] == '0', "CPU 3 online reads %s",
		  control ? control : "nothing");
	control = mk_read_file(CPU_ONLINE(2));
	mk_result("smt_instance_core_still_offline",
		  control && control[0] == '0', "CPU 2 online reads %s",
		  control ? control : "nothing");
}

/* The pool and the shared area where the command line put them */
static void test_fixed(void)
{
	static const char *const tests[] = {
		"reservation", "load_listed", "load_refusals", NULL
	};

	run_selftest("selftest", tests, SKIP_NONE, NULL);
}

/* CONFIG_MULTIKERNEL=y, no multikernel_pool=: nothing to load into */
static void test_nopool(void)
{
	static const char *const tests[] = { "reservation", "no_pool", NULL };

	run_selftest("selftest", tests, SKIP_NONE, NULL);
}

/* CONFIG_MULTIKERNEL=n: no file, no flag, no command, no memory. */
static void test_nomk(void)
{
	char *iomem = mk_read_file("/proc/iomem");

	mk_result("no_sys_multikernel", access("/sys/kernel/multikernel", F_OK),
		  "/sys/kernel/multikernel exists");
	mk_result("no_multikernel_memory", iomem && !strstr(iomem, "Multikernel"),
		  "/proc/iomem mentions Multikernel");
	EXPECT_SILENT("kexec_flag_refused",
		      mk_load_halting(1, 0x10000000, MK_SZ_1M),
		      EINVAL);
	EXPECT_SILENT("reboot_command_refused", mk_start_instance(1, 1), EINVAL);
	/* The selftest says it skips, every test of it */
	run_selftest("selftest", NULL, SKIP_ALL, NULL);
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
