// SPDX-License-Identifier: GPL-2.0
/*
 * The host's init on the machine of make shell and make demo
 * (qemu/shell.sh).  It installs busybox's applets, prints /etc/motd (what
 * to try, from qemu/shell.txt) and gives its terminal, ttyS0, to a shell,
 * "host# ", with the size mkrows= and mkcols= give.  When that shell exits, or busybox's poweroff, reboot or halt
 * asks, it powers the machine off; QEMU runs with -no-reboot.  It tests
 * nothing itself: its closing line on the results port tells qemu/run.sh
 * that it got that far.
 */
#define _GNU_SOURCE
#include <signal.h>

#include "mktest.h"

static volatile sig_atomic_t asked;

static void on_signal(int sig)
{
	asked = sig;
}

/* busybox's poweroff, reboot and halt signal init rather than leave */
static void catch_leave_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* The size of the terminal, from qemu/shell.sh's mkrows= and mkcols= */
static void set_window_size(const char *tty)
{
	struct winsize ws = { 0 };
	int fd;

	if (!getenv("mkrows") || !getenv("mkcols"))
		return;
	ws.ws_row = atoi(getenv("mkrows"));
	ws.ws_col = atoi(getenv("mkcols"));
	fd = open(tty, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, TIOCSWINSZ, &ws))
		printf("%s: no window size: %s\n", tty, strerror(errno));
	if (fd >= 0)
		close(fd);
}

static void install_applets(void)
{
	int status = -1;
	pid_t pid = fork();

	if (!pid) {
		execl("/bin/busybox", "busybox", "--install", "-s", "/bin",
		      NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || status)
		printf("busybox --install -s /bin failed (%d)\n", status);
}

int main(void)
{
	char *motd;
	pid_t pid;

	mk_mount_basics();
	mkdir("/tmp", 01777);
	install_applets();
	catch_leave_signals();
	motd = mk_read_file("/etc/motd");
	if (motd)
		fputs(motd, stdout);
	fflush(stdout);

	set_window_size("/dev/ttyS0");
	pid = mk_spawn_shell("/dev/ttyS0", "host# ");
	while (pid > 0 && waitpid(pid, NULL, 0) < 0 && errno == EINTR &&
	       !asked)
		;
	if (pid > 0 && asked)
		kill(-pid, SIGHUP);
	if (pid <= 0)
		mk_result("shell", 0, "no shell on /dev/ttyS0");
	/* Not on the terminal: the person at it wants no test output */
	if (mk_results) {
		fprintf(mk_results, "MKTEST: DONE %d passed, %d failed\n",
			mk_passed, mk_failed);
		fflush(mk_results);
	}
	sync();
	reboot(RB_POWER_OFF);
	return 0;
}
