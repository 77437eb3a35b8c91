// SPDX-License-Identifier: GPL-2.0
/*
 * The host's init in the console test (qemu/console.sh).  It loads the
 * host's own bzImage (it has LKDTM) as instance 1 on CPU 1 with no UART,
 * so that its console is hvc0 without a console= option, with a shell
 * there (mkshell=1, qemu/init/instance.c), and checks /dev/mkcon1 from the
 * host: refused input before the start, the instance's boot log after it.  It then gives this terminal (ttyS0)
 * to a shell, "host# ", which qemu/console.sh drives through tmux.  Once
 * that shell exits, it crashes the instance (the echo service's
 * CRASH_TYPE) and checks that the panic is readable from /dev/mkcon1,
 * that an unload ends a reader with EOF and takes the node away; then it
 * starts the instance again, hangs it, and reads what it said last.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <linux/multikernel.h>

#include "mktest.h"

#define CONSOLE		"/dev/mkcon1"
/* The echo service (qemu/init/instance.c) crashes on type 6 */

/* What @fd has now, appended to @buf of @size (NUL terminated) */
static size_t drain(int fd, char *buf, size_t len, size_t size)
{
	ssize_t n;

	while (len < size - 1 &&
	       (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	buf[len] = '\0';
	return len;
}

/* Read @path (non-blocking) until it holds @text or @ms pass */
static bool console_shows(const char *path, const char *text, int ms)
{
	static char buf[1 << 17];
	size_t len = 0;
	bool found;
	int fd;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return false;
	for (;;) {
		/* The instance's output may have NUL bytes: search past them */
		len = drain(fd, buf, len, sizeof(buf));
		found = memmem(buf, len, text, strlen(text)) != NULL;
		if (found || ms <= 0 || len == sizeof(buf) - 1)
			break;
		usleep(50000);
		ms -= 50;
	}
	close(fd);
	return found;
}

static void check_before_start(void)
{
	char path[32], name[32];
	struct stat st = { 0 };
	unsigned int minor;
	long ret;
	int fd;

	mk_result("console_node", !stat(CONSOLE, &st) && S_ISCHR(st.st_mode) &&
		  (st.st_mode & 0777) == 0600,
		  "%s: %s, mode %o", CONSOLE, strerror(errno), st.st_mode);
	errno = 0;
	fd = open("/dev/mkcon2", O_RDWR);
	mk_result("console_node_only_loaded", fd < 0 && errno == ENOENT,
		  "/dev/mkcon2 without instance 2: %s", strerror(errno));
	/* A node made by hand for the host's id (0) or an id not loaded */
	for (minor = 0; minor <= 2; minor += 2) {
		snprintf(path, sizeof(path), "/tmp/mkcon-minor%u", minor);
		errno = 0;
		fd = -1;
		if (!mknod(path, S_IFCHR | 0600,
			   makedev(major(st.st_rdev), minor)))
			fd = open(path, O_RDWR);
		snprintf(name, sizeof(name), "console_minor%u_refused", minor);
		mk_result(name, fd < 0 && errno == ENODEV, "%s: %s", path,
			  fd < 0 ? strerror(errno) : "opened");
		if (fd >= 0)
			close(fd);
	}
	fd = open(CONSOLE, O_RDWR | O_NONBLOCK);
	mk_result("console_open", fd >= 0, "%s: %s", CONSOLE,
		  strerror(errno));
	if (fd < 0)
		return;
	ret = read(fd, &st, 1);
	mk_expect_errno("console_read_empty", ret, errno, EAGAIN);
	ret = write(fd, "x", 1);
	mk_expect_errno("console_write_not_started", ret, errno, ENOTCONN);
	close(fd);
}

/* This terminal to "host# " until it exits */
static void host_shell(void)
{
	pid_t pid = mk_spawn_shell("/dev/ttyS0", "host# ");

	mk_report("MKCONSOLE: shell\n");
	if (pid > 0)
		waitpid(pid, NULL, 0);
	mk_report("MKCONSOLE: shell exited\n");
}

#define HOLD_RX		"/sys/module/multikernel/parameters/test_hold_rx"

/*
 * While the host takes nothing off the instance's ring (a test knob), a
 * shell loop in the instance writes 1000 lines to /dev/kmsg, which
 * its console sends: far more than the ring holds.  The console drops
 * what does not fit at once instead of waiting for room, so the loop
 * takes well under the second the console used to wait with interrupts
 * off, and says how much it dropped once the host drains again.
 */
static void check_console_flood(void)
{
	static const char flood[] =
		"t0=$(cat /proc/uptime); i=0; "
		"while [ $i -lt 1000 ]; do "
		"echo mk-flood-$i > /dev/kmsg; i=$((i + 1)); done; "
		"t1=$(cat /proc/uptime); "
		"echo \"mk-flood-took ${t0%% *} ${t1%% *} s\" > /tmp/flood\r";
	static const char show[] = "cat /tmp/flood\r";
	static char buf[1 << 17];
	double t0 = 0, t1 = 0;
	size_t len = 0;
	const char *at;
	int fd, i;

	fd = open(CONSOLE, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || mk_write_file(HOLD_RX, "1")) {
		mk_result("console_flood", 0, "%s or %s: %s", CONSOLE, HOLD_RX,
			  strerror(errno));
		return;
	}
	/* What the host kept so far is not looked at */
	len = drain(fd, buf, len, sizeof(buf));
	len = 0;
	if (write(fd, flood, strlen(flood)) != (ssize_t)strlen(flood))
		mk_report("MKCONSOLE: flood command: %s\n", strerror(errno));
	/* The loop's end, as the instance's clock says, is in its file */
	sleep(6);
	mk_write_file(HOLD_RX, "0");
	sleep(1);
	if (write(fd, show, strlen(show)) != (ssize_t)strlen(show))
		mk_report("MKCONSOLE: cat command: %s\n", strerror(errno));
	for (i = 0; i < 200; i++) {
		len = drain(fd, buf, len, sizeof(buf));
		at = memmem(buf, len, "mk-flood-took ", 14);
		/* Not the echo of the command: numbers follow */
		while (at && sscanf(at, "mk-flood-took %lf %lf s", &t0,
				    &t1) != 2)
			at = memmem(at + 1, len - (at + 1 - buf),
				    "mk-flood-took ", 14);
		if (at)
			break;
		usleep(50000);
	}
	close(fd);
	mk_result("console_flood_ran", at != NULL, "no mk-flood-took line");
	mk_report("MKCONSOLE: 1000 lines to /dev/kmsg took %.2f s with the ring full\n",
		  t1 - t0);
	mk_result("console_flood_not_waiting", at && t1 - t0 < 0.9,
		  "1000 lines took %.2f s: the console waited for room",
		  t1 - t0);
	mk_result("console_flood_counted",
		  memmem(buf, len, " bytes dropped]", 15) != NULL,
		  "no \"bytes dropped\" note from the instance's console");
}

/* Have LKDTM crash instance 1 as @how says; whether it is @state then */
static bool crash(const char *how, const char *state)
{
	int ret = mk_tool((const char *const[]){ "multikernel", "send",
			  "--peer", "1", "--type", "6", how, NULL });

	return !ret && mk_wait_state(1, state, 30000);
}

static int stop_unload(void)
{
	return mk_tool((const char *const[]){ "multikernel", "stop", "--id",
		       "1", "--force", NULL }) ?:
	       mk_tool((const char *const[]){ "multikernel", "unload", "--id",
		       "1", NULL });
}

static void check_after_crash(void)
{
	char buf[64];
	struct stat st;
	int fd, ret;

	mk_result("crash", crash("PANIC", "crashed"), "instance 1 is %s",
		  mk_state_of(1));
	mk_result("console_after_crash",
		  console_shows(CONSOLE, "Kernel panic - not syncing: dumptest",
				10000),
		  "no panic on %s", CONSOLE);

	/* A reader open across the unload reads the rest, then EOF */
	fd = open(CONSOLE, O_RDWR | O_NONBLOCK);
	while (fd >= 0 && read(fd, buf, sizeof(buf)) > 0)
		;
	/* A kernel that crashed reads no input */
	ret = write(fd, "x", 1);
	mk_expect_errno("console_write_crashed", ret, errno, ENOTCONN);
	ret = stop_unload();
	mk_result("stop_unload", !ret, "multikernel stop, unload: %d", ret);
	mk_result("console_eof_at_unload", fd >= 0 && read(fd, buf, 1) == 0,
		  "%s", fd < 0 ? strerror(errno) : "no EOF");
	ret = write(fd, "x", 1);
	mk_expect_errno("console_write_unloaded", ret, errno, ENODEV);
	close(fd);
	errno = 0;
	mk_result("console_node_gone", stat(CONSOLE, &st) && errno == ENOENT,
		  "%s after the unload: %s", CONSOLE, strerror(errno));
}

/* Instance 1 on CPU 1, without a UART; @check runs before its start */
static int load(void (*check)(void))
{
	char append[128];
	int ret;

	snprintf(append, sizeof(append),
		 "mktoken=%s mkshell=1 panic=0", getenv("mktoken"));
	ret = mk_tool((const char *const[]){ "multikernel", "load", "--id",
		      "1", "--cpu", "1", "--mem", "64M", "--uart", "none",
		      "--initrd", "/instance.cpio", "--append", append,
		      "/bzImage-host", NULL });
	if (ret)
		return ret;
	if (check)
		check();
	ret = mk_tool((const char *const[]){ "multikernel", "start", "--id",
		      "1", "--cpu", "1", NULL });
	if (ret || !mk_wait_state(1, "running", 60000))
		return -1;
	return 0;
}

/* What a hung kernel said last is there too */
static void check_after_hang(void)
{
	int ret = load(NULL);

	mk_result("start_again", !ret, "load, start: %d; instance 1 is %s",
		  ret, mk_state_of(1));
	if (ret)
		return;
	mk_result("hang", crash("HARDLOCKUP", "hung"), "instance 1 is %s",
		  mk_state_of(1));
	mk_result("console_after_hang",
		  console_shows(CONSOLE,
				"lkdtm: Performing direct entry HARDLOCKUP",
				10000),
		  "no LKDTM line on %s", CONSOLE);
	ret = stop_unload();
	mk_result("stop_unload_hung", !ret, "multikernel stop, unload: %d",
		  ret);
}

int main(void)
{
	int ret;

	mk_mount_basics();
	mkdir("/tmp", 01777);
	mk_write_file("/sys/devices/system/cpu/cpu1/online", "0");
	ret = load(check_before_start);
	mk_result("load_start", !ret, "load, start: %d; instance 1 is %s",
		  ret, mk_state_of(1));
	if (ret)
		mk_done();
	/* The instance's log from its first line, and its init's */
	mk_result("console_boot_log",
		  console_shows(CONSOLE, "MKINSTANCE: shell on hvc0", 60000) &&
		  console_shows(CONSOLE, "Linux version", 0) &&
		  console_shows(CONSOLE, getenv("mktoken"), 0),
		  "%s lacks the banner, the token or the shell", CONSOLE);

	host_shell();
	check_console_flood();
	check_after_crash();
	check_after_hang();
	mk_done();
}
