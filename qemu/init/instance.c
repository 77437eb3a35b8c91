// SPDX-License-Identifier: GPL-2.0
/*
 * The init of a multikernel instance in the end-to-end test.  Its console
 * is the second serial port, which qemu/spawn.sh reads back:
 *
 *   MKINSTANCE: token=T          the value the host put on its command line
 *   MKINSTANCE: MemTotal=N kB    from /proc/meminfo
 *   MKINSTANCE: cpus=N           CPUs online in the instance
 *   MKINSTANCE: tick N uptime=S  every 200 ms, forever
 *
 * Booted as a crash kernel (qemu/spawn.sh's kdump mode), its console is
 * the first serial port, and mkpoweroff=N powers the machine off N
 * seconds after the init started; it leaves the marker 'C' in the
 * trace of device accesses first (the instance must go on writing to its
 * console after it).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mktest.h"

int main(void)
{
	const char *token = getenv("mktoken"), *off = getenv("mkpoweroff");
	char *meminfo, *p;
	struct timespec ts;
	unsigned long n;

	mkdir("/proc", 0755);
	mount("proc", "/proc", "proc", 0, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);

	printf("MKINSTANCE: token=%s\n", token ? token : "(none)");
	if (off && mk_trace_marker('C'))
		printf("MKINSTANCE: no trace marker: %s\n", strerror(errno));
	meminfo = mk_read_file("/proc/meminfo");
	p = meminfo ? strstr(meminfo, "MemTotal:") : NULL;
	printf("MKINSTANCE: MemTotal=%lu kB\n",
	       p ? strtoul(p + strlen("MemTotal:"), NULL, 10) : 0UL);
	printf("MKINSTANCE: cpus=%ld\n", sysconf(_SC_NPROCESSORS_ONLN));

	for (n = 0;; n++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		printf("MKINSTANCE: tick %lu uptime=%ld.%02ld\n", n,
		       (long)ts.tv_sec, ts.tv_nsec / 10000000);
		usleep(200000);
		if (off && n >= 5UL * strtoul(off, NULL, 10))
			reboot(RB_POWER_OFF);
	}
}
