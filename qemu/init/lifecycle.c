// SPDX-License-Identifier: GPL-2.0
/*
 * Init of the lifecycle test (qemu/spawn.sh --lifecycle): a host on four
 * CPUs runs instances on CPU 1 one after the other and checks each step.
 *
 *   - CYCLES cycles of load, start, READY, stop, CPU 1 online with a
 *     thread on it, CPU 1 offline and unload, the stops graceful (the
 *     instance's kernel shuts down and tells its user space) and forced
 *     in turn; every other pair of cycles the instance has CPU 3 as well
 *     (its user space must count two CPUs), which must come back the
 *     same way; the medians of each step are reported;
 *   - nothing leaks: kmemleak, the slab total after the cycles within
 *     SLAB_SLACK_KB of what it was after the first, the whole pool free
 *     again (an instance of all of it loads), the host's online CPUs as
 *     before;
 *   - what an instance wrote into its memory is in the pool while it runs,
 *     and gone once it is stopped (debugfs multikernel/pool_find); what
 *     a load wrote for an instance that never ran, gone at the next load;
 *   - what only a running instance shows (the selftest has the other
 *     refusals): a stop of a stopped instance, a stop racing a start, a
 *     graceful stop that times out, a second stop, unload, start and CPU
 *     online while a stop waits, a forced stop cutting that wait short, a
 *     signal ending a wait, and a graceful stop that comes before the
 *     instance's kernel can shut down: each with its errno and its log
 *     line, and how it stopped;
 *   - a give-back in which a CPU does not come back keeps all the
 *     instance's offline CPUs, and the next stop gives them back;
 *   - an instance that powers itself off is stopped, and a slow give-back
 *     is not taken for a hang;
 *   - the host's reboot at the end asks a running instance to shut down
 *     first.
 *
 * "MKSPAWN: graceful=N" on the results port tells qemu/spawn.sh how many
 * graceful stops reached the instance's user space (its /sbin/poweroff),
 * which it counts on the instance's console.
 */
#define _GNU_SOURCE
#include <linux/multikernel.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "mktest.h"

#define CYCLES		20
#define SLAB_SLACK_KB	512
#define POOL_MEM	(128ULL << 20)
#define CPU1_ONLINE	"/sys/devices/system/cpu/cpu1/online"
#define CPU3_ONLINE	"/sys/devices/system/cpu/cpu3/online"
#define CPU2_ONLINE	"/sys/devices/system/cpu/cpu2/online"
#define CPUS_ONLINE	"/sys/devices/system/cpu/online"
#define POOL_FIND	"/sys/kernel/debug/multikernel/pool_find"
#define START_DELAY	"/sys/module/multikernel/parameters/test_start_delay_ms"
#define LOAD_DELAY	"/sys/module/multikernel/parameters/test_load_delay_ms"
#define GIVE_BACK_DELAY	"/sys/module/multikernel/parameters/test_give_back_delay_ms"
#define GIVE_BACK_FAIL	"/sys/module/multikernel/parameters/test_give_back_fail_cpu"
/* Message types of the instance's echo service (qemu/init/instance.c) */
#define FILL_TYPE	4
#define HOLD_TYPE	5
#define CRASH_TYPE	6
#define CPUS_TYPE	7
#define SYSFS_INSTANCE	"/sys/kernel/multikernel/instances/1/"
/*
 * The host notices a hang MK_HANG_MS to MK_HANG_MS + 2 * MK_WATCH_MS after
 * the last heartbeat: it sees a beat up to one look after it
 */
#define HANG_NOTICE_S	3.0

static const char *token;
/* Graceful stops that reached the instance's user space */
static int graceful;
/* Cycles that gave the instance CPUs 1 and 3 */
static int two_cpus;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n ? v[n / 2] : 0;
}

/* Instance @id on @cpus ("1" or "1,3"), starting on CPU 1 */
static int load_kernel(unsigned int id, const char *mem,
		       const char *append, const char *kernel,
		       const char *cpus)
{
	char idstr[8];

	snprintf(idstr, sizeof(idstr), "%u", id);
	return mk_tool((const char *const[]){ "multikernel", "load", "--id",
		       idstr, "--cpus", cpus, "--mem", mem, "--initrd",
		       "/instance.cpio", "--append", append, kernel, NULL });
}

static int load(unsigned int id, const char *mem, const char *append)
{
	return load_kernel(id, mem, append, "/bzImage", "1");
}

/* Load instance 1 and start it on CPU 1: whether it said READY */
static bool load_and_start(const char *what, bool ready)
{
	char append[64];

	snprintf(append, sizeof(append), "mktoken=%s-%s", token, what);
	if (load(1, "64M", append)) {
		mk_result(what, 0, "multikernel load failed");
		return false;
	}
	if (mk_start_instance(1, 1)) {
		mk_result(what, 0, "start: %s", strerror(errno));
		return false;
	}
	if (ready && !mk_wait_state(1, "running", 20000)) {
		mk_result(what, 0, "instance 1 is %s 20 s after its start",
			  mk_state_of(1));
		return false;
	}
	return true;
}

/* Bring CPU @cpu back and run a process there, then take it offline again */
static bool cpu_round_trip(int cpu)
{
	const char *online = cpu == 1 ? CPU1_ONLINE : CPU3_ONLINE;
	cpu_set_t set;
	int status;
	pid_t pid;

	if (mk_write_file(online, "1"))
		return false;
	pid = fork();
	if (pid == 0) {
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		_exit(sched_setaffinity(0, sizeof(set), &set) ||
		      sched_getcpu() != cpu);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return false;
	return !mk_write_file(online, "0");
}

/* Instance 1 is stopped, and its stop said @want */
static void check_stopped(const char *name, unsigned int result,
			  unsigned int want)
{
	mk_result(name, result == want && !strcmp(mk_state_of(1), "stopped"),
		  "result %u, want %u; instance 1 is %s", result, want,
		  mk_state_of(1));
}

/* After instance 1's stop (@what): its CPU comes back, and it unloads */
static void give_back(const char *what)
{
	char name[64];

	snprintf(name, sizeof(name), "cpu1_after_%s", what);
	mk_result(name, cpu_round_trip(1), "CPU 1 did not come back: %s",
		  strerror(errno));
	snprintf(name, sizeof(name), "unload_after_%s", what);
	EXPECT(name, mk_file_unload(1), 0, "instance 1 unloaded");
}

/*
 * Send the instance's echo service a message; whether it came back, in
 * @reply if that is not NULL
 */
static bool instance_call(uint32_t type, const void *data, uint32_t len,
			  struct multikernel_msg *reply)
{
	struct multikernel_msg msg = { .peer = 1, .type = type, .len = len };
	struct pollfd pfd = { .events = POLLIN };
	bool ok = false;

	pfd.fd = open("/dev/multikernel", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (pfd.fd < 0)
		return false;
	memcpy(msg.data, data, len);
	if (write(pfd.fd, &msg, MULTIKERNEL_MSG_HDR_SIZE + len) < 0)
		goto out;
	while (!ok && poll(&pfd, 1, 10000) > 0)
		ok = read(pfd.fd, &msg, sizeof(msg)) > 0 && msg.peer == 1 &&
		     msg.type == type;
	if (ok && reply)
		*reply = msg;
out:
	close(pfd.fd);
	return ok;
}

/* The instance's online CPUs, as its user space counts them, or -1 */
static long instance_cpus(void)
{
	struct multikernel_msg msg;

	if (!instance_call(CPUS_TYPE, "", 0, &msg) ||
	    msg.len >= sizeof(msg.data))
		return -1;
	msg.data[msg.len] = '\0';
	return strtol((char *)msg.data, NULL, 10);
}

/* Pages of the pool that start with @marker, or -1 */
static long pool_find(const char *marker)
{
	char *text;

	if (mk_write_file(POOL_FIND, marker))
		return -1;
	text = mk_read_file(POOL_FIND);
	return text ? strtol(text, NULL, 10) : -1;
}

/* Slab: from /proc/meminfo, in kB */
static long slab_kb(void)
{
	char *info = mk_read_file("/proc/meminfo"), *line;
	long kb = -1;

	line = info ? strstr(info, "\nSlab:") : NULL;
	if (line)
		sscanf(line, "\nSlab: %ld kB", &kb);
	return kb;
}

/*
 * A reader of every sysfs file of instance 1, again and again while it is
 * loaded and unloaded: each read succeeds or finds nothing (ENOENT,
 * ENODEV), and the kernel says nothing (log_clean).
 */
static volatile bool readers_stop;
static unsigned long reads_ok, reads_gone, reads_bad;
static int read_bad_errno;

static void *sysfs_reader(void *arg __attribute__((unused)))
{
	static const char *const files[] = { "id", "state", "channel", "cpu",
		"apic_id", "memory", "ready_ms", "crash_reason",
		"crash_message", "crash_log" };
	char buf[16384];
	unsigned int i;
	ssize_t n;
	int fd;

	while (!readers_stop) {
		for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
			snprintf(buf, sizeof(buf), SYSFS_INSTANCE "%s",
				 files[i]);
			fd = open(buf, O_RDONLY);
			n = fd < 0 ? -1 : read(fd, buf, sizeof(buf));
			if (n >= 0) {
				reads_ok++;
			} else if (errno == ENOENT || errno == ENODEV) {
				reads_gone++;
			} else {
				reads_bad++;
				read_bad_errno = errno;
			}
			if (fd >= 0)
				close(fd);
		}
		usleep(1000);
	}
	return NULL;
}

/* Instance 1's channel file, its first word into @buf of 16 bytes */
static void channel_of(char *buf)
{
	const char *text = mk_read_file(SYSFS_INSTANCE "channel");

	if (!text || sscanf(text, "%15s", buf) != 1)
		strcpy(buf, "?");
}

/* Whether a poll() of instance 1's state wakes up as @stop stops it */
struct state_poll {
	pthread_t thread;
	bool started;
	int fd;
	short revents;
	double took;
};

static void *state_poller(void *arg)
{
	struct state_poll *sp = arg;
	struct pollfd pfd = { .fd = sp->fd, .events = POLLPRI };
	double t0 = now();

	if (poll(&pfd, 1, 10000) > 0)
		sp->revents = pfd.revents;
	sp->took = now() - t0;
	return NULL;
}

/*
 * What a load writes is cleared by the next load there, also when the
 * instance never ran: an initrd whose page starts with a marker is in
 * the pool once loaded, still there after the unload (unloads do not
 * clear), and gone once another instance is loaded at the same place
 * (placement is first fit) without an initrd.
 */
static void check_scrub_unstarted(void)
{
	struct multikernel_load_args args = {
		.size = sizeof(args), .id = 2, .cpu = 1, .mem_size = POOL_MEM,
	};
	static char page[4096];
	long loaded, unloaded, reloaded;
	int kfd, ifd, err;

	snprintf(page, sizeof(page), "mk-unstarted-%s", token);
	ifd = open("/unstarted.img", O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (ifd < 0 || write(ifd, page, sizeof(page)) != sizeof(page) ||
	    close(ifd)) {
		mk_result("scrub_unstarted", 0, "/unstarted.img: %s",
			  strerror(errno));
		return;
	}
	kfd = open("/bzImage", O_RDONLY);
	ifd = open("/unstarted.img", O_RDONLY);
	loaded = syscall(SYS_kexec_file_load, kfd, ifd, sizeof(args), &args,
			 KEXEC_FILE_MULTIKERNEL);
	err = errno;
	if (kfd >= 0)
		close(kfd);
	if (ifd >= 0)
		close(ifd);
	if (loaded) {
		mk_result("scrub_unstarted", 0, "load with the marker: %s",
			  strerror(err));
		return;
	}
	loaded = pool_find(page);
	unloaded = mk_file_unload(2) ? -2 : pool_find(page);
	reloaded = mk_file_load("/bzImage", &args) ? -2 : pool_find(page);
	mk_file_unload(2);
	mk_result("scrub_unstarted",
		  loaded == 1 && unloaded == 1 && reloaded == 0,
		  "pages starting with the marker: %ld loaded, %ld unloaded, %ld after the next load (want 1, 1, 0)",
		  loaded, unloaded, reloaded);
}

/*
 * Load, start, stop and unload again and again.  The first cycle also
 * leaves a marker in the instance's memory, which the stop must clear;
 * the second also polls the state file through its stop.
 */
static void check_cycles(void)
{
	double t_load[CYCLES], t_ready[CYCLES], t_stop[2][CYCLES];
	double t_online[CYCLES], t_unload[CYCLES], t0, t1, began = now();
	int n_stop[2] = { 0, 0 }, i, cycles = 0;
	unsigned int result = 0;
	struct state_poll sp = { .fd = -1 };
	pthread_t reader;
	struct multikernel_load_args all = {
		.size = sizeof(all), .id = 2, .cpu = 1, .mem_size = POOL_MEM,
	};
	char append[64], marker[32], online[64], chan_states[3][16] = { "" };
	long slab0 = 0, slab1, found = -1, left = -1, ncpus = -1;

	snprintf(online, sizeof(online), "%s", mk_read_file(CPUS_ONLINE) ?: "");
	pthread_create(&reader, NULL, sysfs_reader, NULL);
	snprintf(marker, sizeof(marker), "mk-scrub-%s", token);
	for (i = 0; i < CYCLES; i++) {
		bool force = i % 2, two = i / 2 % 2;

		snprintf(append, sizeof(append), "mktoken=%s-cycle%d", token, i);
		t0 = now();
		if (load_kernel(1, "64M", append, "/bzImage",
				two ? "1,3" : "1"))
			break;
		t1 = now();
		t_load[i] = t1 - t0;
		if (!i)
			channel_of(chan_states[0]);
		if (mk_start_instance(1, 1) || !mk_wait_state(1, "running", 20000))
			break;
		t_ready[i] = now() - t1;
		if (!i)
			channel_of(chan_states[1]);
		/* Its user space is up: the echo service answers */
		if (!instance_call(1, "ping", 4, NULL))
			break;
		/* Its kernel brought up the CPUs it was given */
		ncpus = instance_cpus();
		if (ncpus != 1 + two)
			break;
		if (!i && instance_call(FILL_TYPE, marker, strlen(marker),
					NULL))
			found = pool_find(marker);
		if (i == 1) {
			char buf[32];

			/* Read once, then poll() for the next change */
			sp.fd = open(SYSFS_INSTANCE "state", O_RDONLY);
			sp.started = sp.fd >= 0 &&
				     read(sp.fd, buf, sizeof(buf)) > 0 &&
				     !pthread_create(&sp.thread, NULL,
						     state_poller, &sp);
			usleep(100000);
		}
		t0 = now();
		if (mk_stop_instance(1, force ? MULTIKERNEL_STOP_FORCE : 0, 0,
				     &result) ||
		    strcmp(mk_state_of(1), "stopped") ||
		    result != (force ? MULTIKERNEL_STOPPED_FORCED :
				       MULTIKERNEL_STOPPED_SHUT_DOWN))
			break;
		t1 = now();
		t_stop[force][n_stop[force]++] = t1 - t0;
		if (!i)
			channel_of(chan_states[2]);
		if (i == 1 && sp.started)
			pthread_join(sp.thread, NULL);
		if (i == 1 && sp.fd >= 0)
			close(sp.fd);
		graceful += !force;
		if (!i)
			left = pool_find(marker);
		if (!cpu_round_trip(1) || (two && !cpu_round_trip(3)))
			break;
		two_cpus += two;
		t0 = now();
		t_online[i] = t0 - t1;
		if (mk_file_unload(1))
			break;
		t_unload[i] = now() - t0;
		if (!i)
			slab0 = slab_kb();
		cycles++;
	}
	readers_stop = true;
	pthread_join(reader, NULL);
	mk_report("MKSPAWN: sysfs reads during the cycles: %lu read, %lu found nothing, %lu failed\n",
		  reads_ok, reads_gone, reads_bad);
	mk_result("sysfs_readers", reads_ok > 100 && reads_gone > 0 &&
		  !reads_bad,
		  "%lu reads, %lu found nothing, %lu failed (last: %s)",
		  reads_ok, reads_gone, reads_bad, strerror(read_bad_errno));
	mk_result("sysfs_state_poll", sp.started &&
		  (sp.revents & (POLLPRI | POLLERR)) && sp.took < 10,
		  "poll() of the state file: revents %#x after %.1f s",
		  sp.revents, sp.took);
	mk_result("lifecycle_cycles", cycles == CYCLES,
		  "cycle %d of %d failed: instance 1 is %s with %ld CPUs, CPU 1 online: %s, stop result %u",
		  cycles + 1, CYCLES, mk_state_of(1), ncpus,
		  mk_read_file(CPU1_ONLINE) ?: "?", result);
	mk_result("lifecycle_two_cpus", two_cpus == CYCLES / 2,
		  "%d of %d cycles ran an instance on CPUs 1 and 3", two_cpus,
		  CYCLES);
	mk_result("sysfs_channel", !strcmp(chan_states[0], "down") &&
		  !strcmp(chan_states[1], "up") &&
		  !strcmp(chan_states[2], "down"),
		  "instance 1's channel: %s loaded, %s running, %s stopped (want down, up, down)",
		  chan_states[0], chan_states[1], chan_states[2]);
	mk_result("scrub_marker_seen", found >= 2048,
		  "%ld pages of the pool start with the instance's marker, want 2048 or more",
		  found);
	mk_result("scrub_after_stop", left == 0,
		  "%ld pages of the pool still start with the marker after the stop",
		  left);
	if (cycles < CYCLES)
		return;

	mk_report("MKSPAWN: cycles: %d in %.1f s; medians: load %.0f ms, start to READY %.0f ms, graceful stop %.0f ms, forced stop %.0f ms, CPU online and offline %.0f ms, unload %.0f ms\n",
		  cycles, now() - began, median(t_load, cycles) * 1e3, median(t_ready, cycles) * 1e3,
		  median(t_stop[0], n_stop[0]) * 1e3,
		  median(t_stop[1], n_stop[1]) * 1e3,
		  median(t_online, cycles) * 1e3,
		  median(t_unload, cycles) * 1e3);
	slab1 = slab_kb();
	mk_report("MKSPAWN: slab %ld kB after the first cycle, %ld kB after the last\n",
		  slab0, slab1);
	mk_result("lifecycle_slab", slab0 > 0 && slab1 - slab0 < SLAB_SLACK_KB,
		  "slab grew from %ld to %ld kB over %d cycles", slab0, slab1,
		  CYCLES - 1);
	mk_result("lifecycle_online_cpus",
		  !strcmp(online, mk_read_file(CPUS_ONLINE) ?: ""),
		  "online CPUs were %s, are %s", online,
		  mk_read_file(CPUS_ONLINE) ?: "?");
	EXPECT("lifecycle_pool_free", mk_file_load("/bzImage", &all), 0,
	       "instance 2 loaded");
	EXPECT("lifecycle_pool_unload", mk_file_unload(2), 0,
	       "instance 2 unloaded");
	check_scrub_unstarted();
}

struct call {
	pthread_t thread;
	unsigned int flags, timeout_ms, result;
	long ret;
	int err;
	double took;
};

static void *stop_thread(void *arg)
{
	struct call *c = arg;
	double t0 = now();

	c->ret = mk_stop_instance(1, c->flags, c->timeout_ms, &c->result);
	c->err = errno;
	c->took = now() - t0;
	return NULL;
}

static void *start_thread(void *arg)
{
	struct call *c = arg;

	c->ret = mk_start_instance(1, 1);
	c->err = errno;
	return NULL;
}

/* Load instance 2 on CPU 3, which a test kernel holds for LOAD_DELAY */
static void *load_thread(void *arg)
{
	struct call *c = arg;
	double t0 = now();

	c->ret = load_kernel(2, "32M", "mktoken=held-load", "/bzImage", "3");
	c->took = now() - t0;
	return NULL;
}

/*
 * A forced stop of a running instance while a load is held for 4 s where
 * a large kernel's decompression or much memory's clearing would take it
 * (test kernels): the stop neither fails nor waits for the load, which
 * then completes; instances' loads and starts wait for each other, stops
 * for neither.
 */
static void check_stop_during_load(void)
{
	struct call c = { 0 };
	unsigned int result;
	double t0, took;

	if (!load_and_start("stop-during-load", true))
		return;
	mk_result("load_delay_set", !mk_write_file(LOAD_DELAY, "4000"),
		  "%s: %s", LOAD_DELAY, strerror(errno));
	mk_kmsg_mark();
	pthread_create(&c.thread, NULL, load_thread, &c);
	usleep(1000000);
	t0 = now();
	EXPECT("stop_during_load",
	       mk_stop_instance(1, MULTIKERNEL_STOP_FORCE, 0, &result), 0,
	       "instance 1 forced: stopped, CPU 1 is free");
	took = now() - t0;
	check_stopped("stop_during_load_result", result,
		      MULTIKERNEL_STOPPED_FORCED);
	pthread_join(c.thread, NULL);
	mk_write_file(LOAD_DELAY, "0");
	mk_result("stop_did_not_wait_for_load", took < 2.0 && c.took >= 3.9,
		  "the stop took %.2f s, the held load %.2f s", took, c.took);
	mk_result("load_during_stop", c.ret == 0,
		  "multikernel load of instance 2 failed");
	EXPECT("unload_held_load", mk_file_unload(2), 0,
	       "instance 2 unloaded");
	give_back("stop_during_load");
}

/*
 * Start instance 1 (@what), have its user space hold up its shutdown and
 * a graceful stop wait for it in @c's thread: whether it waits
 */
static bool begin_waiting_stop(const char *what, struct call *c)
{
	char name[64];

	if (!load_and_start(what, true))
		return false;
	snprintf(name, sizeof(name), "%s_held", what);
	mk_result(name, instance_call(HOLD_TYPE, "", 0, NULL),
		  "the instance's echo service did not answer");
	c->flags = 0;
	c->timeout_ms = 60000;
	mk_kmsg_mark();
	pthread_create(&c->thread, NULL, stop_thread, c);
	mk_wait_state(1, "stopping", 2000);
	usleep(300000);
	return true;
}

static void check_bad_stops(void)
{
	struct call c = { 0 }, c2 = { 0 };
	unsigned int result;
	double t0;

	/* The selftest has the refusals that need no running instance */
	if (load(1, "64M", "mktoken=loaded")) {
		mk_result("bad_stops_load", 0, "multikernel load failed");
		return;
	}

	/* A start held on its way (test kernels), stopped meanwhile */
	mk_write_file(START_DELAY, "2000");
	pthread_create(&c.thread, NULL, start_thread, &c);
	usleep(500000);
	EXPECT("stop_while_starting", mk_stop_instance(1, 0, 0, NULL), EBUSY,
	       "stop: instance 1 is starting");
	pthread_join(c.thread, NULL);
	mk_write_file(START_DELAY, "0");
	mk_result("start_after_stop_refused", c.ret == 0 &&
		  mk_wait_state(1, "running", 20000),
		  "start: %s, instance 1 is %s", c.ret ? strerror(c.err) : "0",
		  mk_state_of(1));

	/* A graceful stop its user space holds up times out, forced */
	mk_result("hold_poweroff", instance_call(HOLD_TYPE, "", 0, NULL),
		  "the instance's echo service did not answer");
	t0 = now();
	EXPECT("stop_graceful_timeout", mk_stop_instance(1, 0, 1500, &result),
	       0, "instance 1 did not shut down in 1500 ms: forcing");
	mk_result("stop_timeout_waited", now() - t0 >= 1.4 &&
		  !strcmp(mk_state_of(1), "stopped") &&
		  result == MULTIKERNEL_STOPPED_FORCED,
		  "the stop returned after %.2f s, instance 1 is %s, result %u",
		  now() - t0, mk_state_of(1), result);
	EXPECT("stop_stopped", mk_stop_instance(1, 0, 0, NULL), EALREADY,
	       "stop: instance 1 is stopped");
	EXPECT("start_stopped", mk_start_instance(1, 1), EBUSY,
	       "start: instance 1 is stopped: unload and load it again");
	give_back("timeout");

	/* While a graceful stop waits */
	if (!begin_waiting_stop("stop_races", &c))
		return;
	mk_result("stop_waits", !strcmp(mk_state_of(1), "stopping"),
		  "instance 1 is %s", mk_state_of(1));
	/* A second graceful stop waits with the first */
	c2.timeout_ms = 60000;
	pthread_create(&c2.thread, NULL, stop_thread, &c2);
	usleep(300000);
	EXPECT("unload_stopping", mk_file_unload(1), EBUSY,
	       "unload: instance 1 is stopping");
	EXPECT("start_stopping", mk_start_instance(1, 1), EBUSY,
	       "start: instance 1 is stopping");
	EXPECT("online_stopping", mk_write_file(CPU1_ONLINE, "1"), EPERM,
	       "CPU 1 runs a multikernel instance");
	EXPECT("stop_force_cuts_wait",
	       mk_stop_instance(1, MULTIKERNEL_STOP_FORCE, 0, NULL), 0,
	       "instance 1 forced: stopped, CPU 1 is free");
	pthread_join(c.thread, NULL);
	pthread_join(c2.thread, NULL);
	mk_result("stop_wait_cut_short", c.ret == 0 && c.took < 10 &&
		  c.result == MULTIKERNEL_STOPPED_FORCED,
		  "the waiting stop returned %ld (%s) after %.1f s, result %u",
		  c.ret, c.ret ? strerror(c.err) : "0", c.took, c.result);
	mk_result("stop_twice_waits", c2.ret == 0 && c2.took < 10 &&
		  c2.result == MULTIKERNEL_STOPPED_FORCED,
		  "the second stop returned %ld (%s) after %.1f s, result %u",
		  c2.ret, c2.ret ? strerror(c2.err) : "0", c2.took, c2.result);
	give_back("force");

	/* A signal ends a wait; the instance stays stopping, and waits again */
	if (!begin_waiting_stop("stop_interrupted", &c))
		return;
	pthread_kill(c.thread, SIGUSR1);
	pthread_join(c.thread, NULL);
	mk_expect_logged("stop_interrupted", c.ret, c.err, EINTR,
			 "instance 1: the caller was interrupted: it stays stopping");
	mk_result("stop_interrupted_stays", !strcmp(mk_state_of(1), "stopping"),
		  "instance 1 is %s", mk_state_of(1));
	t0 = now();
	EXPECT("stop_after_interrupt", mk_stop_instance(1, 0, 1000, &result),
	       0, "instance 1 did not shut down in 1000 ms: forcing");
	mk_result("stop_after_interrupt_waited", now() - t0 >= 0.9 &&
		  result == MULTIKERNEL_STOPPED_FORCED,
		  "the stop returned after %.2f s, result %u", now() - t0,
		  result);
	give_back("interrupt");

	/* Asked before its kernel could shut down, it does so once it can */
	if (!load_and_start("stop_early", false))
		return;
	EXPECT("stop_early", mk_stop_instance(1, 0, 0, &result), 0,
	       "instance 1 shut down: stopped, CPU 1 is free");
	mk_result("stop_early_shut_down", result == MULTIKERNEL_STOPPED_SHUT_DOWN,
		  "result %u", result);
	give_back("early_stop");
}

static void on_signal(int sig __attribute__((unused)))
{
}

/*
 * multikernel update: instance 2 replaces running instance 1 on CPU 1,
 * and instance 1 is gone
 */
static void check_update(void)
{
	int ok;

	if (!load_and_start("update", true) || !mk_echoes(1)) {
		mk_result("update", 0, "instance 1 does not answer");
		return;
	}
	ok = mk_tool((const char *const[]){ "multikernel", "update", "--id",
		     "1", "--new-id", "2", "--mem", "64M", "--initrd",
		     "/instance.cpio", "--append", "mktoken=updated",
		     "/bzImage", NULL });
	mk_result("update", ok == 0 && mk_wait_state(2, "running", 20000) &&
		  mk_echoes(2) && access("/sys/kernel/multikernel/instances/1",
				      F_OK),
		  "multikernel update exited %d; instance 2 is %s, instance 1 %s",
		  ok, mk_state_of(2), mk_state_of(1)[0] ? mk_state_of(1) : "gone");
	ok = mk_tool((const char *const[]){ "multikernel", "update", "--id",
		     "9", "--new-id", "3", "--mem", "64M", "/bzImage", NULL });
	mk_result("update_unknown", ok == 1 && mk_state_of(3)[0] == '\0',
		  "multikernel update of no instance exited %d, instance 3 is %s",
		  ok, mk_state_of(3));
	EXPECT("stop_updated", mk_stop_instance(2, 0, 0, NULL), 0,
	       "instance 2 shut down: stopped");
	graceful += 2;
	cpu_round_trip(1);
	EXPECT("unload_updated", mk_file_unload(2), 0, "instance 2 unloaded");
}

/*
 * The host's own kernel, with LKDTM, as instance 1, started on CPU 1, made
 * to crash as @how says: the host sees it @state within @within seconds.
 * It prints where its text is (qemu/spawn.sh checks the host relocated it
 * to a random address, or with @nokaslr left it at its link address).
 */
static bool crash_instance(const char *how, const char *state,
			   double within, bool nokaslr, double *took)
{
	char append[64];
	double t0;

	/* panic=0: it stays crashed, rather than park its CPU itself */
	snprintf(append, sizeof(append), "mktoken=%s-%s panic=0%s", token, how,
		 nokaslr ? " nokaslr" : "");
	if (load_kernel(1, "64M", append, "/bzImage-host", "1") ||
	    mk_start_instance(1, 1) || !mk_wait_state(1, "running", 30000) ||
	    !instance_call(1, "ping", 4, NULL)) {
		mk_result(state, 0, "instance 1 did not come up: %s",
			  mk_state_of(1));
		return false;
	}
	mk_kmsg_mark();
	t0 = now();
	if (!instance_call(CRASH_TYPE, how, strlen(how), NULL)) {
		mk_result(state, 0, "the instance's echo service did not answer");
		return false;
	}
	mk_wait_state(1, state, (within + 5) * 1000);
	*took = now() - t0;
	mk_result(state, !strcmp(mk_state_of(1), state) && *took <= within,
		  "instance 1 is %s %.1f s after %s, want %s within %.1f s",
		  mk_state_of(1), *took, how, state, within);
	return true;
}

/*
 * A give-back in which a CPU does not come back after INIT (CPU 3, which
 * test kernels can make the host take for one) fails with EIO and is all
 * or nothing: CPU 1, which did come back, stays the instance's with CPU
 * 3, since CPU 3 may still run the instance and wake it; the host refuses
 * to online either, and the next stop gives both back.
 */
static void check_give_back_rollback(void)
{
	unsigned int result = 0;
	char append[64];
	char *text;

	snprintf(append, sizeof(append), "mktoken=%s-rollback", token);
	if (load_kernel(1, "64M", append, "/bzImage", "1,3") ||
	    mk_start_instance(1, 1) || !mk_wait_state(1, "running", 20000)) {
		mk_result("rollback", 0,
			  "instance 1 on CPUs 1 and 3 did not come up: %s",
			  mk_state_of(1));
		return;
	}
	mk_result("give_back_fail_set", !mk_write_file(GIVE_BACK_FAIL, "3"),
		  "%s: %s", GIVE_BACK_FAIL, strerror(errno));
	EXPECT("stop_rolled_back",
	       mk_stop_instance(1, MULTIKERNEL_STOP_FORCE, 0, &result), EIO,
	       "instance 1: CPU 3 did not come back after INIT");
	mk_write_file(GIVE_BACK_FAIL, "-1");
	text = mk_read_file(SYSFS_INSTANCE "cpus");
	mk_result("rollback_keeps_cpus", text && !strcmp(text, "1,3\n"),
		  "instance 1's cpus: %s", text ?: strerror(errno));
	EXPECT("rollback_cpu1_online_refused", mk_write_file(CPU1_ONLINE, "1"),
	       EPERM, "CPU 1 runs a multikernel instance");
	EXPECT("rollback_cpu3_online_refused", mk_write_file(CPU3_ONLINE, "1"),
	       EPERM, "CPU 3 runs a multikernel instance");
	EXPECT("stop_after_rollback",
	       mk_stop_instance(1, MULTIKERNEL_STOP_FORCE, 0, &result), 0,
	       "instance 1 forced: stopped, CPUs 1,3 are free");
	check_stopped("stop_after_rollback_result", result,
		      MULTIKERNEL_STOPPED_FORCED);
	mk_result("cpu3_after_rollback", cpu_round_trip(3),
		  "CPU 3 did not come back: %s", strerror(errno));
	give_back("rollback");
}

/*
 * An instance whose kernel powers itself off (its user space, a second
 * after its start) is stopped, and its CPU comes back; a give-back that
 * takes longer than the heartbeat's 2 s (test kernels can hold
 * it before the memory is cleared, as clearing much memory does) is not
 * taken for a hang on the way (5 s here).  Meanwhile CPU hotplug goes
 * on: the memory is cleared without the device hotplug lock, so another
 * CPU goes offline and online again while the instance is not yet
 * stopped, within 2 s of what that takes with nothing held.
 */
static void check_self_poweroff(void)
{
	double t0, t1, took, quiet;
	char append[64];
	bool ok;

	snprintf(append, sizeof(append), "mktoken=%s-self-off mkpoweroff=1",
		 token);
	/* What a round trip of CPU 2 takes with nothing held */
	t1 = now();
	ok = !mk_write_file(CPU2_ONLINE, "0") &&
	     !mk_write_file(CPU2_ONLINE, "1");
	quiet = now() - t1;
	mk_result("cpu2_round_trip", ok, "CPU 2 offline and online: %s",
		  strerror(errno));
	mk_result("give_back_delay_set", !mk_write_file(GIVE_BACK_DELAY, "5000"),
		  "%s: %s", GIVE_BACK_DELAY, strerror(errno));
	mk_kmsg_mark();
	t0 = now();
	if (load(1, "64M", append) || mk_start_instance(1, 1)) {
		mk_result("self_poweroff", 0, "load or start failed: %s",
			  strerror(errno));
		mk_write_file(GIVE_BACK_DELAY, "0");
		return;
	}
	if (mk_logged_within("test: instance 1: holding its give-back", 20)) {
		t1 = now();
		ok = !mk_write_file(CPU2_ONLINE, "0") &&
		     !mk_write_file(CPU2_ONLINE, "1");
		took = now() - t1;
		mk_result("hotplug_during_clear", ok && took < quiet + 2 &&
			  strcmp(mk_state_of(1), "stopped"),
			  "CPU 2 offline and online: %s in %.2f s (%.2f s with nothing held), instance 1 %s",
			  ok ? "done" : strerror(errno), took, quiet,
			  mk_state_of(1));
	} else {
		mk_result("hotplug_during_clear", 0,
			  "the give-back of instance 1 was not held");
	}
	mk_wait_state(1, "stopped", 30000);
	mk_write_file(GIVE_BACK_DELAY, "0");
	mk_result("self_poweroff", !strcmp(mk_state_of(1), "stopped"),
		  "instance 1 is %s %.1f s after its start", mk_state_of(1),
		  now() - t0);
	/* One look at the log since the mark: it reads what it looks at */
	mk_result("self_poweroff_not_hung",
		  mk_kmsg_logged("instance 1 hung") == 0,
		  "the host took the instance's power off for a hang");
	give_back("self_poweroff");
}

/*
 * An instance that panics is crashed, with its reason and the tail of its
 * log in sysfs, and one that spins with interrupts off is hung; the host
 * runs on, stops either, and starts the instance again.
 */
static void check_crash_and_hang(void)
{
	unsigned int result = 0;
	char *text;
	double took;

	if (crash_instance("PANIC", "crashed", 5, false, &took)) {
		mk_result("crash_logged", mk_kmsg_logged("instance 1 crashed while running: panic: \"dumptest\"") == 1,
			  "the host did not log the instance's panic");
		text = mk_read_file(SYSFS_INSTANCE "crash_reason");
		mk_result("crash_reason", text && !strcmp(text, "panic\n"),
			  "crash_reason: %s", text ?: strerror(errno));
		text = mk_read_file(SYSFS_INSTANCE "crash_message");
		mk_result("crash_message", text && !strcmp(text, "dumptest\n"),
			  "crash_message: %s", text ?: strerror(errno));
		text = mk_read_file(SYSFS_INSTANCE "crash_log");
		mk_result("crash_log", text &&
			  strstr(text, "Kernel panic - not syncing: dumptest") &&
			  strstr(text, "lkdtm"),
			  "crash_log: %.200s", text ?: strerror(errno));
		EXPECT("unload_crashed", mk_file_unload(1), EBUSY,
		       "unload: instance 1 is crashed");
		EXPECT("stop_crashed", mk_stop_instance(1, 0, 0, &result), 0,
		       "instance 1 crashed: stopped, CPU 1 is free");
		check_stopped("stop_crashed_result", result,
			      MULTIKERNEL_STOPPED_CRASHED);
		text = mk_read_file(SYSFS_INSTANCE "crash_reason");
		mk_result("crash_reason_kept", text && !strcmp(text, "panic\n"),
			  "crash_reason after the stop: %s",
			  text ?: strerror(errno));
		give_back("crash");
		mk_report("MKSPAWN: crash noticed after %.2f s\n", took);
	}
	/* Restarted after a crash, it runs */
	if (load_and_start("restart_after_crash", true)) {
		mk_result("restart_after_crash",
			  instance_call(1, "ping", 4, NULL),
			  "the restarted instance does not answer");
		EXPECT("stop_restarted", mk_stop_instance(1, 0, 0, NULL), 0,
		       "instance 1 shut down: stopped");
		graceful++;
		cpu_round_trip(1);
		EXPECT("unload_restarted", mk_file_unload(1), 0,
		       "instance 1 unloaded");
	}

	if (crash_instance("HARDLOCKUP", "hung", HANG_NOTICE_S + 1.5, true,
			   &took)) {
		mk_result("hang_logged", mk_kmsg_logged("instance 1 hung: no heartbeat for") == 1,
			  "the host did not log the hang");
		EXPECT("stop_hung", mk_stop_instance(1, 0, 1000, &result), 0,
		       "instance 1 did not shut down in 1000 ms: forcing");
		check_stopped("stop_hung_forced", result,
			      MULTIKERNEL_STOPPED_FORCED);
		give_back("hang");
		mk_report("MKSPAWN: hang noticed after %.2f s\n", took);
	}
}

int main(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	/* No SA_RESTART: a signal ends a stop's wait */
	sigaction(SIGUSR1, &sa, NULL);
	mk_mount_basics();
	printf("MKTEST: START lifecycle test\n");
	token = getenv("mktoken");
	if (!token) {
		mk_result("token", 0, "boot with mktoken=VALUE");
		mk_done();
	}
	mkdir("/sys/kernel/debug", 0755);
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);

	printf("$ echo 0 > %s %s\n", CPU1_ONLINE, CPU3_ONLINE);
	mk_result("offline_cpu1", !mk_write_file(CPU1_ONLINE, "0"),
		  "cannot take CPU 1 offline: %s", strerror(errno));
	mk_result("offline_cpu3", !mk_write_file(CPU3_ONLINE, "0"),
		  "cannot take CPU 3 offline: %s", strerror(errno));
	check_cycles();
	check_bad_stops();
	check_update();
	check_give_back_rollback();
	check_self_poweroff();
	check_stop_during_load();
	check_crash_and_hang();
	mk_check_kmemleak();
	/*
	 * The host's reboot asks a running instance to shut down first,
	 * once its user space runs, which the echo says (qemu/spawn.sh
	 * reads the rest on the consoles)
	 */
	if (load_and_start("reboot", true) &&
	    instance_call(1, "ping", 4, NULL))
		graceful++;
	mk_report("MKSPAWN: graceful=%d\n", graceful);
	mk_done();
}
