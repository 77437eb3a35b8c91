// SPDX-License-Identifier: GPL-2.0
/*
 * The init of a multikernel instance in the end-to-end test.  Its console
 * is the second serial port, which qemu/spawn.sh reads back:
 *
 *   MKINSTANCE: token=T          the value the host put on its command line
 *   MKINSTANCE: MemTotal=N kB    from /proc/meminfo
 *   MKINSTANCE: cpus=N           CPUs online in the instance
 *   MKINSTANCE: CPU n ran with APIC id A
 *                                one line per online CPU, from a process
 *                                that CPU ran, APIC id from its CPUID
 *   MKINSTANCE: tick N uptime=S  every 200 ms, forever
 *   MKINSTANCE: echo service up  /dev/multikernel is open
 *
 * Meanwhile a child sends every message the host sends to user space of
 * the instance (/dev/multikernel) back to the host, as it is, but for a
 * message of type FLOOD_TYPE carrying a count N: it answers that with N
 * messages of type FLOOD_TYPE + 1, numbered from 0, as fast as the
 * host's ring takes them.  Before it sends back a message of type
 * FILL_TYPE it writes the message's payload at the start of every page of
 * FILL_SIZE bytes of its memory, which it keeps; before one of type
 * HOLD_TYPE it makes its next poweroff hang; one of type CPUS_TYPE it
 * answers with the number of its online CPUs, in decimal; one of type
 * TTY_FLOOD_TYPE carrying a count N has a child write N bytes to hvc0,
 * its tty over messages, as fast as it takes them; after one of type
 * CRASH_TYPE it writes the message's text (PANIC, HARDLOCKUP) to LKDTM's
 * provoke-crash/DIRECT, in a kernel built with it.
 *
 * It is also /sbin/poweroff, which the kernel runs when the host asks it
 * to shut down: it says so on the console (MKINSTANCE: poweroff),
 * syncs and powers off, or after a HOLD_TYPE message says "poweroff held"
 * and sleeps.
 *
 * With mkshell=1 on its command line (qemu/console.sh) it runs a shell,
 * "mk1# ", on hvc0, the console the host reaches over messages
 * (MKINSTANCE: shell on hvc0), and does not tick.
 *
 * Booted as a crash kernel (qemu/spawn.sh's kdump mode), its console is
 * the first serial port, and mkpoweroff=N powers the machine off N
 * seconds after the init started; it leaves the marker 'C' in the
 * trace of device accesses first (the instance must go on writing to its
 * console after it).
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>
#include <linux/multikernel.h>

#include "mktest.h"

#define FLOOD_TYPE	2
#define FILL_TYPE	4
#define HOLD_TYPE	5
#define CRASH_TYPE	6
#define CPUS_TYPE	7
#define TTY_FLOOD_TYPE	8
#define FILL_SIZE	(8UL << 20)
#define HOLD_FILE	"/tmp/poweroff-held"

/* @n messages to the host, without a pause: a full ring is tried again */
static void flood(int fd, uint32_t n)
{
	struct multikernel_msg msg = {
		.peer = MULTIKERNEL_HOST_ID, .type = FLOOD_TYPE + 1,
		.len = sizeof(uint32_t),
	};
	uint32_t seq;

	for (seq = 0; seq < n; seq++) {
		memcpy(msg.data, &seq, sizeof(seq));
		while (write(fd, &msg, MULTIKERNEL_MSG_HDR_SIZE + msg.len) < 0) {
			if (errno != EAGAIN) {
				printf("MKINSTANCE: flood: %s\n",
				       strerror(errno));
				return;
			}
		}
	}
}

/* @len bytes of @data at the start of every page of FILL_SIZE, kept */
static void fill(const void *data, size_t len)
{
	long page = sysconf(_SC_PAGESIZE);
	char *mem;
	size_t i;

	mem = mmap(NULL, FILL_SIZE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE | MAP_LOCKED,
		   -1, 0);
	if (mem == MAP_FAILED) {
		printf("MKINSTANCE: fill: %s\n", strerror(errno));
		return;
	}
	for (i = 0; i < FILL_SIZE; i += page)
		memcpy(mem + i, data, len);
}

/*
 * @n bytes to hvc0, the tty over messages, as fast as it takes them,
 * from a child: the host's console side takes them as messages of the
 * kernel's, which no credit limits
 */
static void tty_flood(uint32_t n)
{
	static char buf[4096];
	ssize_t w;
	int fd;

	if (fork())
		return;
	memset(buf, 'f', sizeof(buf));
	fd = open("/dev/hvc0", O_WRONLY | O_NOCTTY);
	while (fd >= 0 && n) {
		w = write(fd, buf, n < sizeof(buf) ? n : sizeof(buf));
		if (w < 0 && errno != EINTR)
			break;
		if (w > 0)
			n -= w;
	}
	_exit(0);
}

/* Have LKDTM crash this kernel the way @what (@len bytes) names */
static void crash(const void *what, size_t len)
{
	const char *path = "/tmp/debug/provoke-crash/DIRECT";
	int fd;

	mkdir("/tmp/debug", 0755);
	mount("debugfs", "/tmp/debug", "debugfs", 0, NULL);
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, what, len) < 0)
		printf("MKINSTANCE: crash: %s: %s\n", path, strerror(errno));
	close(fd);
}

/* The kernel runs this as /sbin/poweroff when the host asks it to stop */
static int poweroff(void)
{
	int fd = open("/dev/console", O_WRONLY | O_NOCTTY | O_CLOEXEC);

	if (!access(HOLD_FILE, F_OK)) {
		dprintf(fd, "MKINSTANCE: poweroff held\n");
		sleep(600);
		return 1;
	}
	dprintf(fd, "MKINSTANCE: poweroff\n");
	/* Before the CPU stops */
	tcdrain(fd);
	sync();
	reboot(RB_POWER_OFF);
	return 1;
}

static void echo_service(void)
{
	struct multikernel_msg msg;
	ssize_t n;
	int fd;

	mkdir("/dev", 0755);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	fd = open("/dev/multikernel", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		printf("MKINSTANCE: no /dev/multikernel: %s\n", strerror(errno));
		_exit(1);
	}
	printf("MKINSTANCE: echo service up\n");
	for (;;) {
		n = read(fd, &msg, sizeof(msg));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			printf("MKINSTANCE: echo: read: %s\n", strerror(errno));
			_exit(1);
		}
		if (msg.type == FLOOD_TYPE && msg.len == sizeof(uint32_t)) {
			uint32_t count;

			memcpy(&count, msg.data, sizeof(count));
			flood(fd, count);
			continue;
		}
		if (msg.type == TTY_FLOOD_TYPE &&
		    msg.len == sizeof(uint32_t)) {
			uint32_t bytes;

			memcpy(&bytes, msg.data, sizeof(bytes));
			tty_flood(bytes);
		}
		if (msg.type == FILL_TYPE)
			fill(msg.data, msg.len);
		if (msg.type == HOLD_TYPE)
			close(open(HOLD_FILE, O_CREAT | O_WRONLY, 0644));
		if (msg.type == CPUS_TYPE)
			n = MULTIKERNEL_MSG_HDR_SIZE +
			    (msg.len = snprintf((char *)msg.data,
						sizeof(msg.data), "%ld",
						sysconf(_SC_NPROCESSORS_ONLN)));
		msg.peer = MULTIKERNEL_HOST_ID;
		/* A full ring to the host: wait until the host reads */
		while (write(fd, &msg, n) < 0) {
			if (errno != EAGAIN) {
				printf("MKINSTANCE: echo: write: %s\n",
				       strerror(errno));
				_exit(1);
			}
			usleep(1000);
		}
		if (msg.type == CRASH_TYPE)
			crash(msg.data, msg.len);
	}
}

/*
 * Where the kernel's text is, for a kernel with kallsyms: qemu/spawn.sh's
 * lifecycle test wants it to differ between starts, as the host relocates
 * the kernel to a random address at each load
 */
static void print_text_address(void)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[256];

	while (f && fgets(line, sizeof(line), f))
		if (strlen(line) > 16 && !strcmp(line + 16, " T _text\n")) {
			printf("MKINSTANCE: _text=%.16s\n", line);
			/* Out before a crash's messages could cut into it */
			fflush(stdout);
			tcdrain(STDOUT_FILENO);
			break;
		}
	if (f)
		fclose(f);
}

/* The rate of the console's UART, as the kernel set it up */
static const char *console_speed(void)
{
	struct termios t;

	if (tcgetattr(STDOUT_FILENO, &t))
		return strerror(errno);
	switch (cfgetospeed(&t)) {
	case B9600:
		return "9600";
	case B57600:
		return "57600";
	case B115200:
		return "115200";
	default:
		return "other";
	}
}

/* A process pinned to each online CPU says which CPU ran it, one by one */
static void run_on_each_cpu(long cpus)
{
	unsigned int eax, ebx, ecx, edx;
	cpu_set_t set;
	long cpu;
	pid_t pid;

	for (cpu = 0; cpu < cpus; cpu++) {
		pid = fork();
		if (pid == 0) {
			CPU_ZERO(&set);
			CPU_SET(cpu, &set);
			if (sched_setaffinity(0, sizeof(set), &set)) {
				printf("MKINSTANCE: cannot run on CPU %ld: %s\n",
				       cpu, strerror(errno));
				_exit(1);
			}
			/* The x2APIC id of leaf 0xb, or leaf 1's 8 bits */
			if (__get_cpuid_max(0, NULL) >= 0xb) {
				__cpuid_count(0xb, 0, eax, ebx, ecx, edx);
			} else {
				__cpuid(1, eax, ebx, ecx, edx);
				edx = ebx >> 24;
			}
			printf("MKINSTANCE: CPU %d ran with APIC id %u\n",
			       sched_getcpu(), edx);
			_exit(0);
		}
		if (pid > 0)
			waitpid(pid, NULL, 0);
	}
}

/* A shell on hvc0 (major 229) */
static void shell(void)
{
	if (mknod("/dev/hvc0", S_IFCHR | 0600, makedev(229, 0)) &&
	    errno != EEXIST) {
		printf("MKINSTANCE: no /dev/hvc0: %s\n", strerror(errno));
		return;
	}
	printf("MKINSTANCE: shell on hvc0\n");
	mk_spawn_shell("/dev/hvc0", "mk1# ");
}

/*
 * As a crash kernel, told the host's multikernel ranges by mkexclude=
 * (START-END,...; hex): whether /proc/vmcore leaves each out
 */
static void check_vmcore_excludes(const char *ranges)
{
	Elf64_Phdr ph[MK_VMCORE_MAX_PH];
	int n = mk_vmcore_headers(ph);
	unsigned long long start, end;
	const char *p = ranges;

	if (n < 0) {
		printf("MKINSTANCE: no /proc/vmcore to check\n");
		return;
	}
	while (sscanf(p, "%llx-%llx", &start, &end) == 2) {
		printf("MKINSTANCE: vmcore %s %#llx-%#llx\n",
		       mk_vmcore_holds(ph, n, start, end) ? "holds" :
		       "leaves out", start, end);
		p = strchr(p, ',');
		if (!p++)
			break;
	}
}

int main(int argc __attribute__((unused)), char **argv)
{
	const char *token = getenv("mktoken"), *off = getenv("mkpoweroff");
	char *meminfo, *p;
	struct timespec ts;
	unsigned long n;

	p = strrchr(argv[0], '/');
	if (!strcmp(p ? p + 1 : argv[0], "poweroff"))
		return poweroff();

	mkdir("/proc", 0755);
	mount("proc", "/proc", "proc", 0, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);

	/* Before the token, which tests answer by crashing the instance */
	print_text_address();
	printf("MKINSTANCE: token=%s\n", token ? token : "(none)");
	if (off && mk_trace_marker('C'))
		printf("MKINSTANCE: no trace marker: %s\n", strerror(errno));
	meminfo = mk_read_file("/proc/meminfo");
	p = meminfo ? strstr(meminfo, "MemTotal:") : NULL;
	printf("MKINSTANCE: MemTotal=%lu kB\n",
	       p ? strtoul(p + strlen("MemTotal:"), NULL, 10) : 0UL);
	printf("MKINSTANCE: cpus=%ld\n", sysconf(_SC_NPROCESSORS_ONLN));
	printf("MKINSTANCE: console speed=%s\n", console_speed());
	if (getenv("mkexclude"))
		check_vmcore_excludes(getenv("mkexclude"));
	run_on_each_cpu(sysconf(_SC_NPROCESSORS_ONLN));
	if (!off && fork() == 0)
		echo_service();
	if (getenv("mkshell")) {
		shell();
		for (;;)
			pause();
	}

	for (n = 0;; n++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		printf("MKINSTANCE: tick %lu uptime=%ld.%02ld\n", n,
		       (long)ts.tv_sec, ts.tv_nsec / 10000000);
		usleep(200000);
		if (off && n >= 5UL * strtoul(off, NULL, 10))
			reboot(RB_POWER_OFF);
	}
}
