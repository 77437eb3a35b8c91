// SPDX-License-Identifier: GPL-2.0
/*
 * Init of the end-to-end test (qemu/spawn.sh): a host on four CPUs
 * offlines CPUs 1 and 3, loads its own bzImage there as instance 1 with
 * the instance initramfs and the test's token on its command line,
 * starts it on CPU 1 (its kernel brings up CPU 3 itself), and checks that
 * it keeps running well itself:
 *
 *   - the pattern it wrote into all its available RAM but 160 MiB is
 *     intact;
 *   - both its CPUs take timer interrupts and run its threads;
 *   - cross-CPU calls (TLB shootdowns) still arrive;
 *   - ttyS0 interrupts rise while it writes to the tty;
 *   - the instance says READY, and its echo service sends back 10,000
 *     messages from two host CPUs at once, none lost, doubled or changed;
 *     a burst fills the rings and queues on the way (EAGAIN) and then
 *     drains, in order; then poll() says the host cannot write, a
 *     blocking write waits until the instance made room, and a read
 *     that faults keeps its message; a flood of 20,000 messages from the instance
 *     leaves the host's CPU 0, which takes the instance's doorbells,
 *     ticking and running a thread;
 *   - onlining CPU 1 or 3, unloading the running instance and the other
 *     bad requests are refused with their errno, among them a kernel that
 *     cannot run as an instance (/bzImage-noinstance: the host's bzImage
 *     without XLF_MULTIKERNEL_INSTANCE), and starts whose second CPU is
 *     online or instance 1's;
 *   - once the instance is stopped, CPUs 1 and 3 come online in the host.
 *
 * A line "MKSPAWN: mem=LO-HI" on the results port gives qemu/spawn.sh the
 * instance's memory, so that it can judge the instance's own log.
 *
 * With mkspawn=kdump the host dies instead: it loads a crash kernel (its
 * own bzImage, /bzImage-host, with the instance's init, which powers the
 * machine off a few seconds after it is up), starts the instance, reports
 * its memory as above and panics through sysrq.  With
 * mkspawn=segments the tool builds the instance's boot parameters itself
 * and loads it with kexec_load() (multikernel load --segments), for CPU 1
 * alone; the bad requests are left out, the rest is as without a mode.
 * The bench modes give the instance CPU 1 alone too.  With mkspawn=x2apic
 * (an x2APIC machine) the bad requests are left out as well.  With
 * mkspawn=bench it only loads and starts the instance, then idles while
 * qemu/bench.py times the instance's boot; with mkspawn=updatebench it
 * replaces the instance by a new one on the same CPU (multikernel
 * update) five times and reports each downtime as "MKBENCH:" lines; with
 * mkspawn=msgbench it
 * waits for the instance's READY and an echo from its user space, and
 * reports the figures of the host's
 * message bench (debugfs multikernel/msg_bench), and of round trips
 * through the instance's user space, as "MKBENCH:" lines.
 * With mkspawn=mce the bad requests are left out; once the instance
 * runs, the host has QEMU's monitor raise machine checks
 * (check_machine_checks()), and ends there.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <linux/kexec.h>
#include <linux/multikernel.h>
#include <linux/reboot.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>

#include "mktest.h"

#define SZ_2M		0x200000UL
/* The pattern leaves this much of the host's available memory free */
#define PATTERN_SPARE	(160UL << 20)
#define INSTANCE_MEM	"64M"
#define INSTANCE_CPU	1
#define OTHER_CPU	2
/* The instance's second CPU, which its own kernel brings up */
#define INSTANCE_AP	3
#define PROTECT_FAIL	"/sys/module/multikernel/parameters/test_protect_fail"
#define START_EIO	"/sys/module/multikernel/parameters/test_start_eio"

/*
 * Markers in qemu/spawn.sh's trace: 'K' once CPUs 1 and 3 are no longer
 * the host's (from then on what they touch is the instance's doing), 'S'
 * once the start call returned (from then on the host must not even INIT
 * them), 'R' once onlining them was refused (the instance must go on
 * writing to its console after it), 'X' before the instance is stopped
 * (the trace's audit ends there).
 */
static void trace_marker(char what)
{
	if (mk_trace_marker(what))
		mk_result("trace_marker", 0, "ioperm: %s", strerror(errno));
}

static long file_load_image(const char *path, unsigned int id, int cpu,
			    unsigned long mem)
{
	struct multikernel_load_args args = {
		.size = sizeof(args), .id = id, .cpu = cpu, .mem_size = mem,
		.uarts = 1U << 1,
	};

	return mk_file_load(path, &args);
}

/*
 * The crash kernel of the kdump mode: the host's, the instance's init,
 * set up as a kdump kernel beside instances must be.  nr_cpus=1 keeps it
 * off the instance's CPU; pnpacpi=off and 8250.nr_uarts=1 keep it to
 * COM1: its probe of COM2 cleared the transmit interrupt the instance's
 * driver had just enabled, and the instance's console stopped for good.
 */
static long load_crash_kernel(const char *token)
{
	int kfd = open("/bzImage-host", O_RDONLY);
	int ifd = open("/instance.cpio", O_RDONLY);
	char cmdline[320], pool[48], shared[48];
	long ret;

	/* Which the crash kernel's init checks its vmcore leaves out */
	mk_iomem_range("Multikernel pool", pool, sizeof(pool));
	mk_iomem_range("Multikernel shared memory", shared, sizeof(shared));
	snprintf(cmdline, sizeof(cmdline),
		 "console=ttyS0 nr_cpus=1 pnpacpi=off 8250.nr_uarts=1 irqpoll reset_devices panic=-1 mktoken=crash-%s mkpoweroff=4 mkexclude=%s,%s",
		 token, pool, shared);
	ret = syscall(SYS_kexec_file_load, kfd, ifd, strlen(cmdline) + 1,
		      cmdline, KEXEC_FILE_ON_CRASH);
	close(kfd);
	close(ifd);
	return ret;
}

static long file_load(unsigned int id, int cpu, unsigned long mem)
{
	return file_load_image("/bzImage", id, cpu, mem);
}

/* Instance @id on the CPUs of @mask (CPUs 0-63), starting on @cpu */
static long file_load_cpus(unsigned int id, int cpu, uint64_t mask)
{
	struct multikernel_load_args args = {
		.size = sizeof(args), .id = id, .cpu = cpu,
		.mem_size = SZ_2M * 16, .uarts = 1U << 1,
		.cpus = (uintptr_t)&mask, .cpus_size = sizeof(mask),
	};

	return mk_file_load("/bzImage", &args);
}

/*
 * A start checks every CPU of the instance as it checks the first: that
 * of instance 2 on the CPUs of @mask, starting on @cpu, is refused (EBUSY,
 * @why in the log) as check @name
 */
static void check_start_refused(const char *name, int cpu, uint64_t mask,
				const char *why)
{
	char load[64], unload[64];

	snprintf(load, sizeof(load), "load_for_%s", name);
	snprintf(unload, sizeof(unload), "unload_after_%s", name);
	EXPECT(load, file_load_cpus(2, cpu, mask), 0, "instance 2 loaded");
	EXPECT(name, mk_start_instance(2, cpu), EBUSY, why);
	EXPECT(unload, mk_file_unload(2), 0, "instance 2 unloaded");
}

/*
 * kexec_file_load() of /bzImage with @size bytes of its setup header at
 * @off set to @val (little endian), as /bzImage-patched
 */
static long file_load_patched(unsigned int id, unsigned int off,
			      unsigned long long val, unsigned int size)
{
	char *image = NULL;
	size_t len = 0;
	FILE *in = fopen("/bzImage", "r"), *out;
	long ret = -1;

	if (!in)
		return -1;
	if (fseek(in, 0, SEEK_END) == 0) {
		len = ftell(in);
		image = malloc(len);
		rewind(in);
	}
	if (image && fread(image, 1, len, in) == len && off + size <= len) {
		memcpy(image + off, &val, size);
		out = fopen("/bzImage-patched", "w");
		if (out && fwrite(image, 1, len, out) == len && !fclose(out))
			ret = file_load_image("/bzImage-patched", id, OTHER_CPU,
					      SZ_2M * 16);
	}
	free(image);
	fclose(in);
	return ret;
}

/*
 * Where /bzImage's payload begins in the file: after the setup sectors
 * (setup_sects at 0x1f1, and the boot sector), at payload_offset (0x248)
 */
static unsigned int payload_at(void)
{
	unsigned char hdr[0x24c];
	unsigned int off = 0;
	FILE *f = fopen("/bzImage", "r");

	if (f && fread(hdr, 1, sizeof(hdr), f) == sizeof(hdr)) {
		memcpy(&off, hdr + 0x248, sizeof(off));
		off += (hdr[0x1f1] + 1) * 512;
	}
	if (f)
		fclose(f);
	return off;
}

/* kexec_file_load() of /bzImage with @cmdline */
static long file_load_cmdline(unsigned int id, const char *cmdline)
{
	struct multikernel_load_args args = {
		.size = sizeof(args), .id = id, .cpu = OTHER_CPU,
		.mem_size = SZ_2M * 16, .cmdline = (uintptr_t)cmdline,
		.cmdline_len = strlen(cmdline) + 1,
	};

	return mk_file_load("/bzImage", &args);
}

/*
 * The count of /proc/interrupts line @label (such as "LOC:") on @cpu, or
 * summed over all CPUs for @cpu < 0; -1 when there is no such line.
 */
static long irq_count(const char *label, int cpu)
{
	char *text = mk_read_file("/proc/interrupts"), *line, *save, *tok;
	int col, cols[64], ncols = 0;
	long sum = 0;

	if (!text)
		return -1;
	line = strtok_r(text, "\n", &save);
	for (tok = line; tok && (tok = strstr(tok, "CPU")); tok += 3)
		if (ncols < 64)
			cols[ncols++] = atoi(tok + 3);
	while ((line = strtok_r(NULL, "\n", &save))) {
		char *p = line;

		while (*p == ' ')
			p++;
		if (strncmp(p, label, strlen(label)) ||
		    (label[strlen(label) - 1] != ':' && p[strlen(label)] != ':'))
			continue;
		p = strchr(p, ':') + 1;
		for (col = 0; col < ncols; col++) {
			long v = strtol(p, &p, 10);

			if (cpu < 0 || cols[col] == cpu)
				sum += v;
		}
		return sum;
	}
	return -1;
}

/* The /proc/interrupts line that names @dev, summed over all CPUs */
static long irq_count_of(const char *dev)
{
	char *text = mk_read_file("/proc/interrupts"), *line, *save;
	char label[16];

	if (!text)
		return -1;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strstr(line, dev))
			continue;
		if (sscanf(line, " %15[^:]", label) != 1)
			return -1;
		return irq_count(label, -1);
	}
	return -1;
}

static volatile int stop_spinning;
static volatile unsigned long spins_on_other_cpu;

static void *spin_on_other_cpu(void *arg __attribute__((unused)))
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(OTHER_CPU, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return NULL;
	while (!stop_spinning)
		if (sched_getcpu() == OTHER_CPU)
			spins_on_other_cpu++;
	return NULL;
}

static void check_host_runs(void)
{
	long loc0 = irq_count("LOC:", 0), loc2 = irq_count("LOC:", OTHER_CPU);
	long tlb = irq_count("TLB:", -1), tty = irq_count_of("ttyS0");
	char buf[2048];
	pthread_t thread;
	cpu_set_t set;
	int i, fd;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	if (pthread_create(&thread, NULL, spin_on_other_cpu, NULL)) {
		mk_result("host_threads", 0, "pthread_create: %s",
			  strerror(errno));
		return;
	}
	/* Unmapping what both CPUs may cache sends shootdowns to CPU 2 */
	for (i = 0; i < 2000; i++) {
		char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			break;
		p[0] = 1;
		munmap(p, 4096);
	}
	memset(buf, '.', sizeof(buf) - 1);
	buf[sizeof(buf) - 1] = '\n';
	fd = open("/dev/ttyS0", O_WRONLY | O_NOCTTY);
	if (fd >= 0) {
		if (write(fd, buf, sizeof(buf)) < 0)
			perror("write /dev/ttyS0");
		close(fd);
	}
	sleep(1);
	stop_spinning = 1;
	pthread_join(thread, NULL);

	mk_result("host_cpu0_timer", irq_count("LOC:", 0) > loc0,
		  "CPU 0 took no timer interrupt (LOC %ld)", loc0);
	mk_result("host_cpu2_timer", irq_count("LOC:", OTHER_CPU) > loc2,
		  "CPU 2 took no timer interrupt (LOC %ld)", loc2);
	mk_result("host_cpu2_schedules", spins_on_other_cpu > 0,
		  "a thread pinned to CPU 2 never ran there");
	mk_result("host_cross_cpu_calls", irq_count("TLB:", -1) > tlb,
		  "no TLB shootdown arrived (TLB %ld)", tlb);
	mk_result("host_ttyS0_interrupts", irq_count_of("ttyS0") > tty,
		  "ttyS0's interrupt count stayed at %ld", tty);
}

/*
 * An ACPI eject of the instance's CPU, the path QEMU's device_del takes
 * too (acpi_scan_hot_remove()): it must fail to offline the CPU and
 * leave it registered, where it would find it offline already and
 * remove it under the instance.  The eject runs in a work item after
 * the write returns.
 */
static void check_eject_refused(void)
{
	static const char eject[] =
		"/sys/devices/system/cpu/cpu1/firmware_node/eject";
	int i, logged = 0;

	printf("$ echo 1 > %s\n", eject);
	mk_kmsg_mark();
	if (mk_write_file(eject, "1")) {
		mk_result("eject_refused", 0, "%s: %s", eject, strerror(errno));
		return;
	}
	for (i = 0; i < 50 && !logged; i++) {
		usleep(100000);
		logged = mk_kmsg_logged("cpu1: Offline failed");
	}
	mk_result("eject_refused", logged == 1 &&
		  !access("/sys/devices/system/cpu/cpu1/online", F_OK),
		  "CPU 1 %s", logged == 1 ? "is gone" :
		  "was not refused offline within 5 s");
}

/*
 * Suspend and hibernation would take the instance's CPU and memory
 * along.  pm_test stops either at the freezer, so that without the
 * refusal the write would succeed and the host run on.
 */
static void check_sleep_refused(void)
{
	static const char *const states[] = { "freeze", "disk" };
	char name[32];
	unsigned int i;

	mk_result("pm_test_freezer",
		  !mk_write_file("/sys/power/pm_test", "freezer"),
		  "/sys/power/pm_test: %s", strerror(errno));
	for (i = 0; i < 2; i++) {
		printf("$ echo %s > /sys/power/state\n", states[i]);
		snprintf(name, sizeof(name), "sleep_%s_refused", states[i]);
		EXPECT(name, mk_write_file("/sys/power/state", states[i]),
		       EBUSY, "suspend and hibernation are refused");
	}
}

/*
 * The kdump mode panics while a second start, on CPU 2, waits for its CPU
 * (multikernel.test_start_delay_ms holds it there) and a third instance's
 * load waits where a large kernel's decompression would take it
 * (test_load_delay_ms): neither may hold the kexec lock then, or the
 * panic would skip the crash kernel.
 */
static void start_second_slowly(void)
{
	const char *delay =
		"/sys/module/multikernel/parameters/test_start_delay_ms";
	const char *load_delay =
		"/sys/module/multikernel/parameters/test_load_delay_ms";
	pid_t loader;
	const char *state;

	EXPECT("load_second", file_load(2, OTHER_CPU, SZ_2M * 16), 0,
	       "instance 2 loaded");
	EXPECT_SILENT("offline_cpu2",
		      mk_write_file("/sys/devices/system/cpu/cpu2/online", "0"),
		      0);
	mk_result("start_delay_set", !mk_write_file(delay, "20000"), "%s: %s",
		  delay, strerror(errno));
	if (fork() == 0) {
		mk_start_instance(2, OTHER_CPU);
		_exit(0);
	}
	mk_result("load_delay_set", !mk_write_file(load_delay, "20000"),
		  "%s: %s", load_delay, strerror(errno));
	loader = fork();
	if (loader == 0)
		_exit(file_load(3, 3, SZ_2M * 8) ? 1 : 0);
	sleep(1);
	state = mk_state_of(2);
	mk_result("second_starting", !strcmp(state, "starting"),
		  "instance 2 is not starting: \"%s\"", state);
	/* Not listed yet, and its loader still waits */
	state = mk_state_of(3);
	mk_result("third_loading", loader > 0 &&
		  waitpid(loader, NULL, WNOHANG) == 0 && !state[0],
		  "instance 3's load is not held: \"%s\"", state);
}

/*
 * The KUnit suite multikernel_loaded, run now that instances 1 and 2 are
 * loaded: the host can read their memory and not write it.
 */
static void check_loaded_read_only(void)
{
	const char *dir = "/sys/kernel/debug/kunit/multikernel_loaded";
	char path[128], *res;

	mkdir("/sys/kernel/debug", 0755);
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	snprintf(path, sizeof(path), "%s/run", dir);
	if (mk_write_file(path, "1")) {
		mk_result("host_maps_instances_read_only", 0, "%s: %s", path,
			  strerror(errno));
		return;
	}
	snprintf(path, sizeof(path), "%s/results", dir);
	res = mk_read_file(path);
	mk_result("host_maps_instances_read_only",
		  res && strstr(res, "ok 1 mk_test_loaded_read_only\n") &&
		  strstr(res, " 2 loaded instances read-only") &&
		  !strstr(res, "not ok") && !strstr(res, "SKIP"),
		  "KUnit multikernel_loaded: %s", res ? res : strerror(errno));
}

/* MemAvailable from /proc/meminfo, in bytes, or 0 */
static unsigned long mem_available(void)
{
	char *info = mk_read_file("/proc/meminfo"), *line;
	unsigned long kib = 0;

	line = info ? strstr(info, "MemAvailable:") : NULL;
	if (line)
		sscanf(line, "MemAvailable: %lu kB", &kib);
	return kib << 10;
}

/*
 * The instance's kernel said READY over its message channel: the host
 * lists it running, with the time from its start to the READY.
 */
static void check_ready(unsigned int id)
{
	const char *state = mk_state_of(id);
	char path[64], *text;
	unsigned long ms;

	snprintf(path, sizeof(path), MK_SYSFS_INSTANCES "/%u/ready_ms", id);
	text = mk_read_file(path);
	ms = text ? strtoul(text, NULL, 10) : 0;
	mk_result("instance_ready", !strcmp(state, "running") && ms,
		  "instance %u: state %s, READY after %lu ms", id,
		  state[0] ? state : "(not listed)", ms);
	if (ms)
		printf("MKSPAWN: ready_ms=%lu\n", ms);
}

/*
 * Messages through /dev/multikernel to the instance's echo service
 * (qemu/init/instance.c).  Each carries its sender thread, its sequence
 * number, a length and a checksum of bytes made from both.
 */
#define MSG_SENDERS	2
#define MSG_PER_SENDER	5000
#define MSG_WINDOW	32
#define MSG_TYPE	1

struct msg_payload {
	uint32_t sender;
	uint32_t seq;
	uint32_t len;
	uint32_t sum;
	uint8_t data[MULTIKERNEL_MSG_DATA_MAX - 16];
};

static int msg_fd = -1;
static pthread_mutex_t msg_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t msg_cond = PTHREAD_COND_INITIALIZER;
static uint32_t msg_echoed[MSG_SENDERS];
static unsigned long msg_eagain[MSG_SENDERS];
static int msg_errno[MSG_SENDERS];
static bool msg_give_up;

static uint32_t msg_sum(const uint8_t *data, uint32_t len, uint32_t seed)
{
	uint32_t h = 2166136261U ^ seed, i;

	for (i = 0; i < len; i++)
		h = (h ^ data[i]) * 16777619U;
	return h;
}

/* Message @seq of sender @sender; returns its length on the wire */
static size_t msg_fill(struct multikernel_msg *msg, uint32_t sender,
		       uint32_t seq)
{
	struct msg_payload *p = (struct msg_payload *)msg->data;
	uint32_t i;

	memset(msg, 0, sizeof(*msg));
	p->sender = sender;
	p->seq = seq;
	p->len = (seq * 37 + sender * 11) % (sizeof(p->data) + 1);
	for (i = 0; i < p->len; i++)
		p->data[i] = seq * 131 + i * 7 + sender;
	p->sum = msg_sum(p->data, p->len, sender ^ seq);
	msg->peer = 1;
	msg->type = MSG_TYPE;
	msg->len = 16 + p->len;
	return MULTIKERNEL_MSG_HDR_SIZE + msg->len;
}

/* Whether @msg, @n bytes read, is an intact echo; sets *@sender, *@seq */
static bool msg_check(const struct multikernel_msg *msg, ssize_t n,
		      uint32_t *sender, uint32_t *seq)
{
	const struct msg_payload *p = (const void *)msg->data;

	if (n < MULTIKERNEL_MSG_HDR_SIZE + 16 || msg->peer != 1 ||
	    msg->type != MSG_TYPE || msg->flags ||
	    (size_t)n != MULTIKERNEL_MSG_HDR_SIZE + msg->len ||
	    p->sender >= MSG_SENDERS || p->len > sizeof(p->data) ||
	    msg->len != 16 + p->len ||
	    p->sum != msg_sum(p->data, p->len, p->sender ^ p->seq))
		return false;
	*sender = p->sender;
	*seq = p->seq;
	return true;
}

/* Write one message, again while the ring is full; 0 or an errno */
static int msg_send(const struct multikernel_msg *msg, size_t len,
		    unsigned long *eagain)
{
	while (write(msg_fd, msg, len) < 0) {
		if (errno != EAGAIN)
			return errno;
		(*eagain)++;
		usleep(200);
	}
	return 0;
}

/* A sender thread on its own host CPU, at most MSG_WINDOW ahead */
static void *msg_sender(void *arg)
{
	uint32_t sender = (uintptr_t)arg, seq;
	struct multikernel_msg msg;
	cpu_set_t set;
	size_t len;

	CPU_ZERO(&set);
	CPU_SET(sender ? OTHER_CPU : 0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	for (seq = 0; seq < MSG_PER_SENDER; seq++) {
		pthread_mutex_lock(&msg_lock);
		while (seq - msg_echoed[sender] >= MSG_WINDOW && !msg_give_up)
			pthread_cond_wait(&msg_cond, &msg_lock);
		pthread_mutex_unlock(&msg_lock);
		if (msg_give_up)
			break;
		len = msg_fill(&msg, sender, seq);
		msg_errno[sender] = msg_send(&msg, len, &msg_eagain[sender]);
		if (msg_errno[sender])
			break;
	}
	return NULL;
}

/* Read one message within @ms; its length, or -1 with errno */
static ssize_t msg_read(struct multikernel_msg *msg, int ms)
{
	struct pollfd pfd = { .fd = msg_fd, .events = POLLIN };
	ssize_t n;

	for (;;) {
		n = read(msg_fd, msg, sizeof(*msg));
		if (n >= 0 || errno != EAGAIN)
			return n;
		n = poll(&pfd, 1, ms);
		if (n <= 0) {
			errno = n ? errno : ETIMEDOUT;
			return -1;
		}
	}
}

static void check_message_errors(void)
{
	struct multikernel_msg msg;
	size_t len = msg_fill(&msg, 0, 1);

	msg.flags = 1;
	EXPECT_SILENT("msg_flags_refused", write(msg_fd, &msg, len), EINVAL);
	msg_fill(&msg, 0, 1);
	msg.type = MULTIKERNEL_MSG_TYPE_MAX + 1;
	EXPECT_SILENT("msg_type_refused", write(msg_fd, &msg, len), EINVAL);
	msg_fill(&msg, 0, 1);
	EXPECT_SILENT("msg_len_refused", write(msg_fd, &msg, len + 1), EINVAL);
	EXPECT_SILENT("msg_short_refused", write(msg_fd, &msg, 8), EINVAL);
	msg.peer = 9;
	EXPECT_SILENT("msg_no_such_instance", write(msg_fd, &msg, len),
		      ENOENT);
	msg.peer = MULTIKERNEL_HOST_ID;
	EXPECT_SILENT("msg_not_to_itself", write(msg_fd, &msg, len), ENOENT);
	EXPECT_SILENT("msg_read_short_buffer", read(msg_fd, &msg, 100), EINVAL);
	EXPECT_SILENT("msg_read_empty", read(msg_fd, &msg, sizeof(msg)),
		      EAGAIN);
}

/*
 * 10,000 messages to the instance's echo service from two host CPUs at
 * once, each sender at most MSG_WINDOW messages ahead of its echoes:
 * every one comes back once and intact.
 */
static void check_message_echo(void)
{
	static bool seen[MSG_SENDERS][MSG_PER_SENDER];
	unsigned long got = 0, dup = 0, bad = 0, total;
	struct multikernel_msg msg;
	pthread_t thread[MSG_SENDERS];
	struct timespec t0, t1;
	uint32_t sender, seq, i;
	ssize_t n;
	double secs;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < MSG_SENDERS; i++)
		pthread_create(&thread[i], NULL, msg_sender,
			       (void *)(uintptr_t)i);
	total = MSG_SENDERS * MSG_PER_SENDER;
	while (got < total) {
		n = msg_read(&msg, 10000);
		if (n < 0) {
			printf("MKSPAWN: echo read: %s after %lu\n",
			       strerror(errno), got);
			break;
		}
		if (!msg_check(&msg, n, &sender, &seq) ||
		    seq >= MSG_PER_SENDER) {
			bad++;
			continue;
		}
		if (seen[sender][seq]) {
			dup++;
			continue;
		}
		seen[sender][seq] = true;
		got++;
		pthread_mutex_lock(&msg_lock);
		msg_echoed[sender]++;
		pthread_cond_broadcast(&msg_cond);
		pthread_mutex_unlock(&msg_lock);
	}
	pthread_mutex_lock(&msg_lock);
	msg_give_up = true;
	pthread_cond_broadcast(&msg_cond);
	pthread_mutex_unlock(&msg_lock);
	for (i = 0; i < MSG_SENDERS; i++)
		pthread_join(thread[i], NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9;

	printf("MKSPAWN: echo: %lu of %lu messages back in %.2f s, %lu doubled, %lu bad, EAGAIN %lu and %lu\n",
	       got, total, secs, dup, bad, msg_eagain[0], msg_eagain[1]);
	mk_result("messages_echoed",
		  got == total && !dup && !bad && !msg_errno[0] &&
		  !msg_errno[1],
		  "%lu of %lu back, %lu doubled, %lu bad; senders: %s, %s",
		  got, total, dup, bad, strerror(msg_errno[0]),
		  strerror(msg_errno[1]));
}

/*
 * A burst without reading: the rings and queues between here and the
 * echo service fill until the host's write gets EAGAIN, and then all of
 * it comes back, in order.
 */
static void check_message_backpressure(void)
{
	struct multikernel_msg msg;
	uint32_t sent, got, sender, seq;
	bool full = false, order = true;
	size_t len;
	ssize_t n;

	for (sent = 0; sent < 5000; sent++) {
		len = msg_fill(&msg, 0, sent);
		if (write(msg_fd, &msg, len) < 0) {
			full = errno == EAGAIN;
			break;
		}
	}
	for (got = 0; got < sent; got++) {
		n = msg_read(&msg, 10000);
		if (n < 0 || !msg_check(&msg, n, &sender, &seq) ||
		    seq != got) {
			order = false;
			break;
		}
	}
	printf("MKSPAWN: burst: %u messages until EAGAIN, %u back\n", sent,
	       got);
	mk_result("messages_backpressure", full && got == sent && order,
		  "%u sent until %s, %u back%s", sent,
		  full ? "EAGAIN" : "the loop ended", got,
		  order ? "" : ", not in order");
	mk_result("messages_drained", msg_read(&msg, 500) < 0 &&
		  errno == ETIMEDOUT, "a message too many came back");
}

static double now_s(void);

struct blocked_write {
	int fd;
	struct multikernel_msg msg;
	size_t len;
	ssize_t ret;
	int err;
	volatile bool done;
};

static void *blocked_writer(void *arg)
{
	struct blocked_write *b = arg;

	b->ret = write(b->fd, &b->msg, b->len);
	b->err = errno;
	b->done = true;
	return NULL;
}

/*
 * Write echo requests on @fd until the instance's echo service stops
 * reading: EAGAIN for 1 s.  Return: whether it did; *@sent, how many went.
 */
static bool msg_fill_until_full(int fd, uint32_t *sent)
{
	struct multikernel_msg msg;
	double t_full = 0;
	size_t len;

	for (*sent = 0; *sent < 5000;) {
		len = msg_fill(&msg, 0, *sent);
		if (write(fd, &msg, len) >= 0) {
			(*sent)++;
			t_full = 0;
		} else if (errno != EAGAIN) {
			return false;
		} else if (!t_full) {
			t_full = now_s();
		} else if (now_s() - t_full > 1) {
			return true;
		} else {
			usleep(1000);
		}
	}
	return false;
}

/*
 * Once the peer has no room, poll() says the file is not writable, and a
 * write() without O_NONBLOCK waits; once the host reads the echoes, the
 * instance makes room and rings, the write goes through and poll() says
 * writable again.
 */
static void check_message_blocking(void)
{
	struct pollfd pfd = { .fd = msg_fd, .events = POLLOUT };
	struct blocked_write b = { .ret = -1 };
	struct multikernel_msg msg;
	uint32_t sent, got, sender, seq;
	bool full, waited, out_full, out_after;
	pthread_t thread;
	ssize_t n;

	full = msg_fill_until_full(msg_fd, &sent);
	out_full = poll(&pfd, 1, 300) == 0;
	b.fd = open("/dev/multikernel", O_RDWR | O_CLOEXEC);
	b.len = msg_fill(&b.msg, 0, sent);
	pthread_create(&thread, NULL, blocked_writer, &b);
	usleep(500000);
	waited = !b.done;
	for (got = 0; got <= sent; got++) {
		n = msg_read(&msg, 10000);
		if (n < 0 || !msg_check(&msg, n, &sender, &seq) || seq != got)
			break;
	}
	pthread_join(thread, NULL);
	pfd.revents = 0;
	out_after = poll(&pfd, 1, 2000) == 1 && (pfd.revents & POLLOUT);
	if (b.fd >= 0)
		close(b.fd);
	mk_result("messages_write_waits",
		  full && waited && b.ret == (ssize_t)b.len,
		  "%u sent until %s; the blocking write %s, then returned %zd (%s)",
		  sent, full ? "EAGAIN for 1 s" : "the loop ended",
		  waited ? "waited" : "did not wait", b.ret,
		  b.ret < 0 ? strerror(b.err) : "ok");
	mk_result("messages_poll_out", out_full && out_after,
		  "POLLOUT %s while the instance had no room, %s once it had",
		  out_full ? "not set" : "set", out_after ? "set" : "not set");
	mk_result("messages_after_wait", got == sent + 1,
		  "%u of %u back in order", got, sent + 1);
}

struct out_poll {
	int fd;
	int ret;
	short revents;
	volatile bool done;
};

static void *out_poller(void *arg)
{
	struct out_poll *o = arg;
	struct pollfd pfd = { .fd = o->fd, .events = POLLOUT };

	o->ret = poll(&pfd, 1, 30000);
	o->revents = pfd.revents;
	o->done = true;
	return NULL;
}

/* A read() that cannot copy its message out keeps it for the next one */
static void check_message_read_fault(void)
{
	struct pollfd pfd = { .fd = msg_fd, .events = POLLIN };
	struct multikernel_msg msg;
	uint32_t sender, seq = ~0U;
	ssize_t n, fault;
	void *bad;
	int err;

	n = write(msg_fd, &msg, msg_fill(&msg, 0, 4242));
	if (n < 0 || poll(&pfd, 1, 10000) != 1) {
		mk_result("messages_read_fault", 0, "no echo: %s",
			  n < 0 ? strerror(errno) : "timed out");
		return;
	}
	/* A page the kernel cannot write to */
	bad = mmap(NULL, sizeof(msg), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		   -1, 0);
	if (bad == MAP_FAILED) {
		mk_result("messages_read_fault", 0, "mmap: %s", strerror(errno));
		return;
	}
	fault = read(msg_fd, bad, sizeof(msg));
	err = errno;
	munmap(bad, sizeof(msg));
	n = read(msg_fd, &msg, sizeof(msg));
	mk_result("messages_read_fault",
		  fault < 0 && err == EFAULT && n > 0 &&
		  msg_check(&msg, n, &sender, &seq) && seq == 4242,
		  "a read into a bad buffer returned %zd (%s), the next %zd, message %u",
		  fault, fault < 0 ? strerror(err) : "ok", n, seq);
}

#define FLOOD_TYPE	2
#define FLOOD_COUNT	20000

static volatile bool flood_done;
static long flood_max_gap_us;
static unsigned long flood_spins;

/* Microseconds since *@prev, which becomes now */
static long gap_us(struct timespec *prev)
{
	struct timespec now;
	long gap;

	clock_gettime(CLOCK_MONOTONIC, &now);
	gap = (now.tv_sec - prev->tv_sec) * 1000000 +
	      (now.tv_nsec - prev->tv_nsec) / 1000;
	*prev = now;
	return gap;
}

/* A thread on CPU 0: the longest it went without running, in us */
static void *flood_watch(void *arg __attribute__((unused)))
{
	struct timespec prev;
	cpu_set_t set;
	long gap;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	clock_gettime(CLOCK_MONOTONIC, &prev);
	while (!flood_done) {
		gap = gap_us(&prev);
		if (gap > flood_max_gap_us)
			flood_max_gap_us = gap;
		flood_spins++;
	}
	return NULL;
}

/*
 * The instance sends FLOOD_COUNT messages as fast as it can while this
 * thread, on CPU 2, reads them: all arrive in order, and CPU 0, which
 * takes the instance's doorbells, keeps its timer ticking and runs a
 * thread with no gap of half a second or more.
 */
static void check_message_flood(void)
{
	struct multikernel_msg msg = {
		.peer = 1, .type = FLOOD_TYPE, .len = sizeof(uint32_t),
	};
	uint32_t count = FLOOD_COUNT, got = 0, seq;
	long loc0 = irq_count("LOC:", 0), mki0 = irq_count("MKI:", 0);
	struct timespec t0, t1;
	pthread_t watch;
	cpu_set_t set;
	bool order = true;
	double secs;
	ssize_t n;

	CPU_ZERO(&set);
	CPU_SET(OTHER_CPU, &set);
	sched_setaffinity(0, sizeof(set), &set);
	flood_done = false;
	pthread_create(&watch, NULL, flood_watch, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	memcpy(msg.data, &count, sizeof(count));
	if (write(msg_fd, &msg, MULTIKERNEL_MSG_HDR_SIZE + msg.len) < 0)
		printf("MKSPAWN: flood: %s\n", strerror(errno));
	while (got < count) {
		n = msg_read(&msg, 10000);
		if (n < 0)
			break;
		memcpy(&seq, msg.data, sizeof(seq));
		if (msg.peer != 1 || msg.type != FLOOD_TYPE + 1 ||
		    msg.len != sizeof(seq) || seq != got) {
			order = false;
			break;
		}
		got++;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	flood_done = true;
	pthread_join(watch, NULL);
	secs = t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9;

	printf("MKSPAWN: flood: %u of %u messages in %.2f s; CPU 0: %ld timer ticks, %ld message interrupts, a thread ran %lu times, its longest gap %ld us\n",
	       got, count, secs, irq_count("LOC:", 0) - loc0,
	       irq_count("MKI:", 0) - mki0, flood_spins, flood_max_gap_us);
	mk_result("messages_flood", got == count && order,
		  "%u of %u flood messages%s", got, count,
		  order ? "" : ", one out of order");
	mk_result("flood_host_responsive",
		  irq_count("LOC:", 0) > loc0 && flood_spins &&
		  flood_max_gap_us < 500000,
		  "CPU 0 during the flood: timer %ld -> %ld, a thread's longest gap %ld us",
		  loc0, irq_count("LOC:", 0), flood_max_gap_us);
}

static void check_doorbell_cpu(void);

static void check_messages(void)
{
	msg_fd = open("/dev/multikernel", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (msg_fd < 0) {
		mk_result("messages_device", 0, "/dev/multikernel: %s",
			  strerror(errno));
		return;
	}
	check_message_errors();
	check_message_echo();
	check_message_backpressure();
	check_message_blocking();
	check_message_read_fault();
	check_message_flood();
	close(msg_fd);
	check_doorbell_cpu();

	/* The tool, by hand */
	mk_result("tool_send", !mk_tool((const char *const[]){ "multikernel",
		  "send", "--peer", "1", "--type", "7", "hello", NULL }),
		  "multikernel send failed");
	mk_result("tool_recv", !mk_tool((const char *const[]){ "multikernel",
		  "recv", "--timeout", "5000", NULL }),
		  "multikernel recv got no echo");
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* An echo from instance @id's user space: when it came back, or 0 */
static double echo_from(unsigned int id)
{
	struct multikernel_msg msg = { .peer = id, .type = MSG_TYPE, .len = 4 };
	struct pollfd pfd = { .events = POLLIN };
	double at = 0;

	pfd.fd = open("/dev/multikernel", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (pfd.fd < 0)
		return 0;
	if (write(pfd.fd, &msg, MULTIKERNEL_MSG_HDR_SIZE + msg.len) >= 0)
		while (!at && poll(&pfd, 1, 20000) > 0)
			if (read(pfd.fd, &msg, sizeof(msg)) > 0 &&
			    msg.peer == id)
				at = now_s();
	close(pfd.fd);
	return at;
}

#define DOORBELL_CPU	"/sys/kernel/multikernel/instances/1/doorbell_cpu"
#define CPU2_ONLINE	"/sys/devices/system/cpu/cpu2/online"

/*
 * Instance 1's doorbells go where its doorbell_cpu says: by default to
 * CPU 0, the first of the CPUs that take managed interrupts, as the
 * first channel; to CPU 2 once written there, which then takes its
 * message interrupts; to another CPU once CPU 2 goes offline.  Its echo
 * comes back throughout, and an offline CPU is refused.
 */
static void check_doorbell_cpu(void)
{
	long before;
	char *text;

	text = mk_read_file(DOORBELL_CPU);
	mk_result("doorbell_cpu_default", text && !strcmp(text, "0\n"),
		  "%s: %s", DOORBELL_CPU, text ? text : strerror(errno));
	EXPECT("doorbell_cpu_offline_refused",
	       mk_write_file(DOORBELL_CPU, "1"), EINVAL,
	       "instance 1: doorbell_cpu: CPU 1 is not online");
	mk_result("doorbell_cpu_set", !mk_write_file(DOORBELL_CPU, "2"),
		  "%s: %s", DOORBELL_CPU, strerror(errno));
	before = irq_count("MKI:", 2);
	mk_result("doorbell_cpu_echo", echo_from(1) > 0,
		  "no echo with instance 1's doorbell on CPU 2");
	mk_result("doorbell_cpu_rang", irq_count("MKI:", 2) > before,
		  "CPU 2 took no message interrupt: %ld before, %ld after",
		  before, irq_count("MKI:", 2));
	mk_result("doorbell_cpu_offline", !mk_write_file(CPU2_ONLINE, "0"),
		  "cannot take CPU 2 offline: %s", strerror(errno));
	text = mk_read_file(DOORBELL_CPU);
	mk_result("doorbell_cpu_moved", text && strcmp(text, "2\n"),
		  "instance 1's doorbell is on CPU %s after CPU 2 went offline",
		  text ? text : strerror(errno));
	mk_result("doorbell_cpu_echo_moved", echo_from(1) > 0,
		  "no echo once CPU 2 went offline");
	mk_result("doorbell_cpu_back", !mk_write_file(CPU2_ONLINE, "1") &&
		  !mk_write_file(DOORBELL_CPU, "0"),
		  "CPU 2 online, doorbell_cpu 0: %s", strerror(errno));
}

/*
 * The host's message bench, on CPU 0 with CPU 2 as the other host CPU,
 * once the instance said READY and its user space answered: its figures
 * go to qemu/bench.py.
 */
static void msg_bench(void)
{
	const char *path = "/sys/kernel/debug/multikernel/msg_bench";
	char *res;
	cpu_set_t set;
	int i;

	for (i = 0; i < 200 && strcmp(mk_state_of(1), "running"); i++)
		usleep(100000);
	/*
	 * And until its user space answers: READY comes early in the boot
	 * of its kernel, which is not preemptible and would hold the bench's
	 * messages up while it frees its init memory
	 */
	if (!echo_from(1))
		mk_report("MKBENCH: error: no echo from the instance's user space\n");
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	mkdir("/sys/kernel/debug", 0755);
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	if (mk_write_file(path, "1 2000 2000"))
		mk_report("MKBENCH: error %s: %s\n", path, strerror(errno));
	res = mk_read_file(path);
	mk_report("MKBENCH: %s", res && *res ? res : "no result\n");
}

#define USER_RT_ROUNDS	1000
#define USER_RT_PER_LINE	25

/*
 * Round trips from this process through instance 1's user space (its
 * echo service) and back, each timed on its own: their distribution goes
 * to qemu/bench.py as "MKBENCH: user_rt_us" lines of USER_RT_PER_LINE
 * figures each, the microseconds of each round trip.
 */
static void user_round_trips(void)
{
	struct multikernel_msg msg = { .peer = 1, .type = MSG_TYPE, .len = 4 };
	struct pollfd pfd = { .events = POLLIN };
	char line[USER_RT_PER_LINE * 16 + 32];
	int i, len = 0, lost = 0, figures = 0;
	double t0;

	pfd.fd = open("/dev/multikernel", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (pfd.fd < 0) {
		mk_report("MKBENCH: error: /dev/multikernel: %s\n",
			  strerror(errno));
		return;
	}
	for (i = 0; i < USER_RT_ROUNDS; i++) {
		bool back = false;

		msg.peer = 1;
		msg.len = 4;
		t0 = now_s();
		if (write(pfd.fd, &msg, MULTIKERNEL_MSG_HDR_SIZE + msg.len) < 0) {
			lost++;
			continue;
		}
		while (!back && poll(&pfd, 1, 5000) > 0)
			back = read(pfd.fd, &msg, sizeof(msg)) > 0 &&
			       msg.peer == 1;
		if (!back) {
			lost++;
			continue;
		}
		if (!figures)
			len = snprintf(line, sizeof(line), "MKBENCH: user_rt_us");
		/* At most 15 characters a figure: a round trip under 10^9 us */
		len += snprintf(line + len, sizeof(line) - len, " %.1f",
				(now_s() - t0) * 1e6);
		if (++figures == USER_RT_PER_LINE) {
			mk_report("%s\n", line);
			figures = 0;
		}
	}
	if (figures)
		mk_report("%s\n", line);
	mk_report("MKBENCH: user_rt_rounds=%d user_rt_lost=%d\n",
		  USER_RT_ROUNDS, lost);
	close(pfd.fd);
}

#define TTY_FLOOD_TYPE	8
#define STALL_SECS	5

/* The longest a thread on @cpu went without running over @secs, in us */
static long longest_stall(int cpu, int secs)
{
	struct timespec prev;
	cpu_set_t set, old;
	long gap, max = 0;
	double end;

	sched_getaffinity(0, sizeof(old), &old);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	clock_gettime(CLOCK_MONOTONIC, &prev);
	end = prev.tv_sec + prev.tv_nsec / 1e9 + secs;
	do {
		gap = gap_us(&prev);
		if (gap > max)
			max = gap;
	} while (prev.tv_sec + prev.tv_nsec / 1e9 < end);
	sched_setaffinity(0, sizeof(old), &old);
	return max;
}

/*
 * A thread on the CPU that takes instance 1's doorbells (doorbell_cpu):
 * its longest stall over STALL_SECS while the instance is quiet, then
 * while the instance floods its tty over messages (kernel messages, which
 * no credit limits); figures for qemu/bench.py
 */
static void stall_bench(void)
{
	struct multikernel_msg msg = {
		.peer = 1, .type = TTY_FLOOD_TYPE, .len = sizeof(uint32_t),
	};
	char *text = mk_read_file(DOORBELL_CPU);
	uint32_t bytes = 1U << 30;
	int cpu = text ? atoi(text) : 0, fd;
	long quiet, flood, mki;

	quiet = longest_stall(cpu, STALL_SECS);
	memcpy(msg.data, &bytes, sizeof(bytes));
	fd = open("/dev/multikernel", O_RDWR | O_CLOEXEC);
	if (fd < 0 || write(fd, &msg, MULTIKERNEL_MSG_HDR_SIZE + msg.len) < 0)
		mk_report("MKBENCH: error: flood: %s\n", strerror(errno));
	/* Under way */
	usleep(500000);
	mki = irq_count("MKI:", cpu);
	flood = longest_stall(cpu, STALL_SECS);
	mki = irq_count("MKI:", cpu) - mki;
	mk_report("MKBENCH: stall_cpu=%d stall_secs=%d stall_quiet_us=%ld stall_flood_us=%ld stall_flood_doorbells=%ld\n",
		  cpu, STALL_SECS, quiet, flood, mki);
}

/* Instance @id's state file into @buf, without its newline */
static void sysfs_state(unsigned int id, char *buf, size_t size)
{
	char path[64], *text;
	size_t len;

	snprintf(path, sizeof(path), "/sys/kernel/multikernel/instances/%u/state",
		 id);
	text = mk_read_file(path) ?: "";
	len = strcspn(text, "\n");
	if (len >= size)
		len = size - 1;
	memcpy(buf, text, len);
	buf[len] = '\0';
}

/*
 * The downtime of a kernel update: from the old instance's last message
 * (an echo from its user space) to the new one's READY, which the tool's
 * update starts on the same CPU once the old one stopped.  Instances 1
 * and 2 take turns; figures for qemu/bench.py.
 */
static void update_bench(void)
{
	char state[16], path[64], *text;
	unsigned int round, old, new;
	double last, ready;
	int i;

	for (i = 0; i < 300; i++) {
		sysfs_state(1, state, sizeof(state));
		if (!strcmp(state, "running"))
			break;
		usleep(100000);
	}
	for (round = 1; round <= 5; round++) {
		char oldid[4], newid[4];

		old = round % 2 ? 1 : 2;
		new = 3 - old;
		snprintf(oldid, sizeof(oldid), "%u", old);
		snprintf(newid, sizeof(newid), "%u", new);
		last = echo_from(old);
		if (!last || mk_tool((const char *const[]){ "multikernel",
				     "update", "--id", oldid, "--new-id",
				     newid, "--mem", INSTANCE_MEM, "--initrd",
				     "/instance.cpio", "--append",
				     "mktoken=update", "/bzImage", NULL })) {
			mk_report("MKBENCH: error: round %u: no echo or no update\n",
				  round);
			break;
		}
		for (ready = 0, i = 0; !ready && i < 10000; i++) {
			sysfs_state(new, state, sizeof(state));
			if (!strcmp(state, "running"))
				ready = now_s();
			else
				usleep(1000);
		}
		snprintf(path, sizeof(path),
			 "/sys/kernel/multikernel/instances/%u/ready_ms", new);
		text = mk_read_file(path);
		mk_report("MKBENCH: update round=%u downtime_ms=%.0f spawn_ready_ms=%s",
			  round, ready ? (ready - last) * 1e3 : -1.0,
			  text ?: "-1\n");
	}
	mk_report("MKBENCH: done\n");
}


/* Have qemu/monitor.py give QEMU's monitor @command */
static void monitor(const char *command)
{
	mk_report("MKMONITOR: %s\n", command);
}

#define MCE_INTERVAL	"/sys/devices/system/machinecheck/machinecheck0/check_interval"

/*
 * Machine checks that QEMU's monitor raises (mce -b CPU BANK STATUS
 * MCG_STATUS ADDR MISC), broadcast as Intel's are: CPU gets the error,
 * every other CPU an uncorrected one in bank 1 that is not enabled, which
 * each kernel ignores; MCG_STATUS says RIPV and MCIP.  A CPU with CR4.MCE
 * clear would shut the machine down.  An uncorrected error with no action
 * required and no address (VAL, UC, EN, S: 0xb1...) on the instance's
 * first CPU: it lives on, tells the host, and leaves the bank as it was.
 * The same on host CPU 0: the host logs it, the instance lives.  A
 * processor context corrupt (PCC, 0xb2...) on the instance's first CPU:
 * the instance panics, the host lives.  Once the host has the CPU back,
 * its own poll of the banks finds the first error there, and the next
 * machine check is the host's alone.
 */
static void check_machine_checks(void)
{
	int ok;

	mk_kmsg_mark();
	monitor("mce -b 1 2 0xb100000000000000 5 0 0");
	mk_result("mce_reported_to_host",
		  mk_logged_within("instance 1: machine check on its CPU of APIC id 1: bank 2 status 0xb100000000000000 ",
				20),
		  "the host logged no report of the machine check on CPU 1");
	mk_result("mce_instance_lives", echo_from(1) > 0,
		  "no echo from instance 1 after its machine check");

	mk_kmsg_mark();
	monitor("mce -b 0 3 0xb100000000000000 5 0 0");
	mk_result("mce_broadcast_host",
		  mk_logged_within("CPU 0: Machine Check Exception: 5 Bank 3: b100000000000000",
				20),
		  "the host logged no machine check of its own on CPU 0");
	mk_result("mce_broadcast_instance_lives",
		  echo_from(1) > 0 && !strcmp(mk_state_of(1), "running"),
		  "instance 1 is %s after a broadcast machine check",
		  mk_state_of(1));

	mk_kmsg_mark();
	monitor("mce -b 1 4 0xb200000000000000 5 0 0");
	mk_result("mce_fatal_crashes_instance",
		  mk_wait_state(1, "crashed", 30000) &&
		  mk_logged_within("instance 1 crashed while running: panic: \"Fatal machine check", 5),
		  "instance 1 is %s after a fatal machine check on its CPU",
		  mk_state_of(1));
	ok = mk_tool((const char *const[]){ "multikernel", "stop", "--id",
		     "1", "--force", NULL }) ?:
	     mk_tool((const char *const[]){ "multikernel", "unload", "--id",
		     "1", NULL });
	mk_result("mce_stop_unload", !ok, "multikernel stop, unload: %d", ok);
	printf("$ echo 1 > /sys/devices/system/cpu/cpu{1,3}/online\n");
	mk_result("mce_cpus_back",
		  !mk_write_file("/sys/devices/system/cpu/cpu1/online", "1") &&
		  !mk_write_file("/sys/devices/system/cpu/cpu3/online", "1"),
		  "a CPU did not come online in the host: %s", strerror(errno));

	/* Setting the interval makes every CPU read its banks at once */
	mk_kmsg_mark();
	printf("$ echo 299 > %s\n", MCE_INTERVAL);
	mk_result("mce_banks_left_to_host",
		  !mk_write_file(MCE_INTERVAL, "299") &&
		  mk_logged_within("Bank 2: b100000000000000", 20),
		  "the host did not find the instance's first error in CPU 1's bank 2");

	/*
	 * The instance's kernel died in its machine check handler on both
	 * its CPUs; had either kept MCIP set, the next machine check would
	 * have reset the machine
	 */
	mk_kmsg_mark();
	monitor("mce -b 0 3 0xb100000000000000 5 0 0");
	mk_result("mce_after_instance",
		  mk_logged_within("CPU 0: Machine Check Exception: 5 Bank 3: b100000000000000",
				20),
		  "the host logged no machine check on CPU 0 once it had CPUs 1 and 3 back");

	/*
	 * A start that fails sends its CPU INIT, which leaves it waiting
	 * for a STARTUP with CR4.MCE clear: the host must boot it into its
	 * play_dead() again, or the next machine check resets the machine
	 */
	printf("$ echo 0 > /sys/devices/system/cpu/cpu1/online\n");
	EXPECT_SILENT("mce_cpu1_offline",
		      mk_write_file("/sys/devices/system/cpu/cpu1/online", "0"),
		      0);
	mk_result("mce_load_to_fail", !file_load(2, 1, SZ_2M * 16),
		  "load for CPU 1: %s", strerror(errno));
	printf("$ echo 1 > %s\n", START_EIO);
	EXPECT_SILENT("mce_start_eio_set", mk_write_file(START_EIO, "1"), 0);
	EXPECT("mce_start_fails", mk_start_instance(2, 1), EIO,
	       "start: instance 2 on CPU 1 failed (-5)");
	EXPECT_SILENT("mce_start_eio_clear", mk_write_file(START_EIO, "0"), 0);
	mk_result("mce_unload_failed", !mk_file_unload(2),
		  "unload of the failed instance: %s", strerror(errno));
	mk_kmsg_mark();
	monitor("mce -b 0 3 0xb100000000000000 5 0 0");
	mk_result("mce_after_failed_start",
		  mk_logged_within("CPU 0: Machine Check Exception: 5 Bank 3: b100000000000000",
				20),
		  "the host logged no machine check on CPU 0 after a start on CPU 1 failed");
}

/* The span of the instance's memory, from its memory file in sysfs */
static int instance_range(unsigned int id, unsigned long *lo,
			  unsigned long *hi)
{
	char path[64], *text, *line, *save;
	unsigned long a, b;
	int n = 0;

	snprintf(path, sizeof(path), MK_SYSFS_INSTANCES "/%u/memory", id);
	text = mk_read_file(path);
	for (line = text ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%lx-%lx", &a, &b) != 2)
			return -1;
		if (!n++ || a < *lo)
			*lo = a;
		if (n == 1 || b > *hi)
			*hi = b;
	}
	return n ? 0 : -1;
}

/* Leave the UART at @speed, as a host that used it might */
static int set_uart_speed(const char *path, speed_t speed)
{
	struct termios t;
	int fd, ret;

	fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -1;
	ret = tcgetattr(fd, &t) || cfsetspeed(&t, speed) ||
	      tcsetattr(fd, TCSANOW, &t) ? -1 : 0;
	close(fd);
	return ret;
}

int main(void)
{
	const char *token = getenv("mktoken"), *mode = getenv("mkspawn");
	bool kdump = mode && !strcmp(mode, "kdump");
	bool bench = mode && !strcmp(mode, "bench");
	bool msgbench = mode && !strcmp(mode, "msgbench");
	bool updatebench = mode && !strcmp(mode, "updatebench");
	bool segments = mode && !strcmp(mode, "segments");
	bool x2apic = mode && !strcmp(mode, "x2apic");
	bool mce = mode && !strcmp(mode, "mce");
	/* CPU 3 too, but where a test wants an instance of one CPU */
	bool two_cpus = !(segments || bench || msgbench || updatebench);
	char append[128], *pattern, *text;
	unsigned long lo = 0, hi = 0, i, pattern_size;
	struct out_poll out = { .fd = -1 };
	bool full, waited, woke = false;
	uint32_t x = 2463534242U, sent = 0;
	pthread_t poller;
	int ok;

	mk_mount_basics();
	printf("MKTEST: START end-to-end spawn test\n");
	if (!token) {
		mk_result("token", 0, "boot with mktoken=VALUE");
		mk_done();
	}

	printf("$ echo 0 > /sys/devices/system/cpu/cpu1/online\n");
	mk_result("offline_cpu1",
		  !mk_write_file("/sys/devices/system/cpu/cpu1/online", "0"),
		  "cannot take CPU 1 offline: %s", strerror(errno));
	if (two_cpus) {
		printf("$ echo 0 > /sys/devices/system/cpu/cpu3/online\n");
		mk_result("offline_cpu3",
			  !mk_write_file("/sys/devices/system/cpu/cpu3/online",
					 "0"),
			  "cannot take CPU 3 offline: %s", strerror(errno));
	}
	/* The instance's console is to keep the rate the host leaves */
	if (!bench && !msgbench && !updatebench)
		mk_result("uart_115200", !set_uart_speed("/dev/ttyS1", B115200),
			  "cannot set /dev/ttyS1 to 115200 baud: %s",
			  strerror(errno));
	trace_marker('K');
	if (kdump)
		/* a plain crash kernel load: nothing of multikernel */
		EXPECT_SILENT("load_crash_kernel", load_crash_kernel(token), 0);

	/* A pattern in free RAM, checked after the instance ran */
	pattern_size = mem_available();
	pattern_size = pattern_size > PATTERN_SPARE + (64UL << 20) ?
		       (pattern_size - PATTERN_SPARE) & ~(SZ_2M - 1) :
		       64UL << 20;
	printf("pattern in %lu MiB of free RAM\n", pattern_size >> 20);
	pattern = mmap(NULL, pattern_size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (pattern == MAP_FAILED) {
		mk_result("pattern_fill", 0, "mmap: %s", strerror(errno));
		mk_done();
	}
	for (i = 0; i < pattern_size / 4; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		((uint32_t *)pattern)[i] = x;
	}

	/* console= with options of its own wins over the host's rate */
	snprintf(append, sizeof(append), "mktoken=%s%s", token,
		 segments ? " console=ttyS1,57600" : "");
	mk_kmsg_mark();
	if (segments)
		/* Boot parameters built by the tool, kexec_load() */
		ok = mk_tool((const char *const[]){ "multikernel", "load",
			  "--segments", "--id", "1", "--mem", INSTANCE_MEM,
			  "--initrd", "/instance.cpio", "--append", append,
			  "/bzImage", NULL });
	else
		ok = mk_tool((const char *const[]){ "multikernel", "load",
			  "--id", "1", "--cpus", two_cpus ? "1,3" : "1",
			  "--mem", INSTANCE_MEM, "--initrd", "/instance.cpio",
			  "--append", append, "/bzImage", NULL });
	mk_result("tool_load", ok == 0, "multikernel load exited %d", ok);
	text = mk_read_file("/sys/kernel/multikernel/instances/1/cpus");
	mk_result("instance_cpus_listed", text &&
		  !strcmp(text, segments ? "\n" : two_cpus ? "1,3\n" : "1\n"),
		  "instance 1's cpus file says '%s'", text ? text : "?");
	/*
	 * kexec_file_load() decompresses the LZ4 kernel and relocates it;
	 * an image of segments decompresses itself when it starts
	 */
	mk_result("load_decompressed",
		  mk_kmsg_logged("KiB, relocated to a random virtual address") ==
		  !segments, "the host %s",
		  segments ? "decompressed an image of segments" :
			     "did not log that it decompressed the kernel");
	mk_result("instance_range", !instance_range(1, &lo, &hi),
		  "instance 1 has no memory file in sysfs");
	mk_report("MKSPAWN: mem=%#lx-%#lx\n", lo, hi);

	if (segments) {
		/*
		 * The tool places a second image where no instance's
		 * memory file lists anything: outside instance 1, or the
		 * load fails
		 */
		ok = mk_tool((const char *const[]){ "multikernel", "load",
			  "--segments", "--id", "2", "--mem", "16M",
			  "/bzImage", NULL });
		mk_result("tool_load_second_segments", ok == 0,
			  "multikernel load --segments of a second instance exited %d",
			  ok);
		EXPECT("unload_second_segments", mk_file_unload(2), 0,
		       "instance 2 unloaded");
	}
	if (kdump || bench || msgbench || updatebench || segments || x2apic ||
	    mce)
		goto start;

	/* Bad requests before the start */
	EXPECT("load_beyond_pool", file_load(2, 2, 1UL << 40), EADDRNOTAVAIL,
	       "do not fit in the pool");
	EXPECT("load_same_id", file_load(1, 2, SZ_2M * 16), EEXIST,
	       "instance 1 is already loaded");
	EXPECT("load_kernel_without_instance_support",
	       file_load_image("/bzImage-noinstance", 2, 2, SZ_2M * 16),
	       ENOEXEC, "cannot run as a multikernel instance");
	/*
	 * Headers that would have the decompressor write outside the
	 * instance's memory, which the host then leaves it to: at
	 * pref_address, 16 MiB, below the pool, for a kernel that says it
	 * is not relocatable (0x234); at a pref_address past the end of RAM
	 * (0x258), which a relocatable kernel does not go below; at a 4 GiB
	 * boundary for kernel_alignment 0 (0x230).  Each used to load, and
	 * reset the machine when started.
	 */
	EXPECT("load_kernel_not_relocatable", file_load_patched(2, 0x234, 0, 1),
	       EINVAL, "would decompress at 0x1000000+");
	EXPECT("load_kernel_pref_address_outside",
	       file_load_patched(2, 0x258, 0xc0000000, 8), EINVAL,
	       "would decompress at 0xc0000000+");
	EXPECT("load_kernel_alignment_zero", file_load_patched(2, 0x230, 0, 4),
	       EINVAL, "kernel alignment 0x0 is not a power of 2");
	/*
	 * The LZ4 payload the host decompresses: a first chunk longer than
	 * the payload is refused, as the decompressor would fail on it; one
	 * that is not LZ4 loads, left to the decompressor
	 */
	EXPECT("load_kernel_payload_corrupt",
	       file_load_patched(2, payload_at() + 4, 0x7fffffff, 4), ENOEXEC,
	       "the kernel's LZ4 payload is corrupt");
	EXPECT("load_kernel_payload_not_lz4",
	       file_load_patched(2, payload_at(), 0, 4), 0,
	       "kernel left to decompress itself: its payload is not LZ4");
	EXPECT("unload_kernel_payload_not_lz4", mk_file_unload(2), 0,
	       "instance 2 unloaded");
	EXPECT("load_cmdline_memmap",
	       file_load_cmdline(2, "console=ttyS1 memmap=64M@0x1000000"),
	       EINVAL, "sets memmap=64M@0x1000000: the host alone");
	{
		/* 2047 bytes with the "dis_ucode_ldr " the host puts first */
		static char cmdline[2048];

		memset(cmdline, 'x', 2047 - 14);
		EXPECT("load_cmdline_longest", file_load_cmdline(2, cmdline),
		       0, "instance 2 loaded");
		EXPECT("unload_cmdline_longest", mk_file_unload(2), 0,
		       "instance 2 unloaded");
		cmdline[2047 - 14] = 'x';
		EXPECT("load_cmdline_too_long", file_load_cmdline(2, cmdline),
		       EINVAL, "Kernel command line too long");
	}
	/* CPU 1 offline, CPU 2 online */
	check_start_refused("start_cpu_online", 1, 0x6,
			    "start: CPU 2 is online");
	/* The tool names the CPU in the way, not the one to start on */
	EXPECT("load_for_tool_start_busy", file_load_cpus(2, 1, 0x6), 0,
	       "instance 2 loaded");
	ok = mk_tool_to((const char *const[]){ "multikernel", "start", "--id",
			"2", "--cpu", "1", NULL }, "/tool.err");
	text = mk_read_file("/tool.err");
	mk_result("tool_start_busy_names_cpu", ok == 1 && text &&
		  strstr(text, "EBUSY: CPU 2 is online"),
		  "multikernel start exited %d, said \"%s\"", ok,
		  text ? text : "?");
	EXPECT("unload_after_tool_start_busy", mk_file_unload(2), 0,
	       "instance 2 unloaded");
	EXPECT("load_on_host_cpu", file_load(2, OTHER_CPU, SZ_2M * 16), 0,
	       "instance 2 loaded");
	EXPECT("start_on_host_cpu", mk_start_instance(2, OTHER_CPU), EBUSY,
	       "CPU 2 is online");
	EXPECT("start_on_wrong_cpu", mk_start_instance(2, INSTANCE_CPU), EINVAL,
	       "was loaded for CPU 2, not 1");
	EXPECT("unload_loaded", mk_file_unload(2), 0, "instance 2 unloaded");
	/* Unload made instance 2's memory writable again for the next one */
	EXPECT("load_after_unload", file_load(2, OTHER_CPU, SZ_2M * 16), 0,
	       "instance 2 loaded");
	check_loaded_read_only();
	EXPECT("unload_again", mk_file_unload(2), 0, "instance 2 unloaded");
	/*
	 * Test kernels can fail mapping an instance read-only part way
	 * (multikernel.test_protect_fail): the load is refused and leaves
	 * nothing read-only, or the next load into that memory would oops.
	 */
	mk_result("protect_fail_set", !mk_write_file(PROTECT_FAIL, "1"),
		  "%s: %s", PROTECT_FAIL, strerror(errno));
	EXPECT("load_protect_fails", file_load(3, OTHER_CPU, SZ_2M * 16),
	       ENOMEM, "instance 3: cannot map its memory read-only");
	mk_write_file(PROTECT_FAIL, "0");
	EXPECT("load_after_protect_failed", file_load(3, OTHER_CPU, SZ_2M * 16),
	       0, "instance 3 loaded");
	EXPECT("unload_after_protect_failed", mk_file_unload(3), 0,
	       "instance 3 unloaded");
	{
		static char page[4096];
		struct kexec_segment seg = {
			.buf = page, .bufsz = sizeof(page),
			.mem = (void *)(lo + SZ_2M), .memsz = SZ_2M,
		};

		EXPECT("load_overlapping",
		       syscall(SYS_kexec_load, lo + SZ_2M, 1, &seg,
			       KEXEC_MULTIKERNEL | KEXEC_MULTIKERNEL_ID(3)),
		       EBUSY, "overlaps a loaded instance");
	}

start:
	ok = mk_tool((const char *const[]){ "multikernel", "start", "--id", "1",
		  "--cpu", "1", NULL });
	mk_result("tool_start", ok == 0, "multikernel start exited %d", ok);
	trace_marker('S');
	mk_tool((const char *const[]){ "multikernel", "list", NULL });

	/* qemu/bench.py times the instance's boot and stops the machine */
	while (bench)
		pause();
	if (updatebench) {
		update_bench();
		for (;;)
			pause();
	}
	if (msgbench) {
		msg_bench();
		user_round_trips();
		stall_bench();
		mk_report("MKBENCH: done\n");
		for (;;)
			pause();
	}

	/* Let the instance boot while the host goes on */
	sleep(4);
	if (kdump) {
		start_second_slowly();
		mk_finish();
		printf("$ echo c > /proc/sysrq-trigger\n");
		mk_write_file("/proc/sysrq-trigger", "c");
		for (;;)
			pause();
	}
	if (mce) {
		check_ready(1);
		check_machine_checks();
		mk_done();
	}
	check_host_runs();
	check_ready(1);
	check_messages();

	EXPECT("start_running", mk_start_instance(1, INSTANCE_CPU), EBUSY,
	       "start: instance 1 is running");
	EXPECT("unload_running", mk_file_unload(1), EBUSY,
	       "unload: instance 1 is running");
	printf("$ echo 1 > /sys/devices/system/cpu/cpu1/online\n");
	EXPECT("online_refused",
	       mk_write_file("/sys/devices/system/cpu/cpu1/online", "1"), EPERM,
	       "CPU 1 runs a multikernel instance");
	/* Its device refuses to go offline, which an eject needs */
	EXPECT_SILENT("offline_refused",
		      mk_write_file("/sys/devices/system/cpu/cpu1/online", "0"),
		      EPERM);
	/* The CPU the instance's kernel brought up is its own as well */
	if (two_cpus) {
		printf("$ echo 1 > /sys/devices/system/cpu/cpu3/online\n");
		EXPECT("online_ap_refused",
		       mk_write_file("/sys/devices/system/cpu/cpu3/online",
				     "1"),
		       EPERM, "CPU 3 runs a multikernel instance");
		EXPECT_SILENT("offline_ap_refused",
			      mk_write_file("/sys/devices/system/cpu/cpu3/online",
					    "0"), EPERM);
	}
	trace_marker('R');
	check_eject_refused();
	check_sleep_refused();
	if (two_cpus) {
		/* CPU 2 offline for the while, CPU 3 instance 1's */
		EXPECT_SILENT("offline_cpu2_again",
			      mk_write_file("/sys/devices/system/cpu/cpu2/online",
					    "0"), 0);
		check_start_refused("start_cpu_taken", 2, 0xc,
				    "start: CPU 3 is taken by another instance");
		EXPECT_SILENT("online_cpu2_again",
			      mk_write_file("/sys/devices/system/cpu/cpu2/online",
					    "1"), 0);
	}

	/* kexec -e would take the instance's CPU and memory along */
	{
		static const char cmdline[] = "console=ttyS0";
		int kfd = open("/bzImage-host", O_RDONLY);

		EXPECT_SILENT("load_kexec_image",
			      syscall(SYS_kexec_file_load, kfd, -1,
				      sizeof(cmdline), cmdline,
				      KEXEC_FILE_NO_INITRAMFS), 0);
		close(kfd);
		EXPECT("kexec_reboot_refused",
		       syscall(SYS_reboot, LINUX_REBOOT_MAGIC1,
			       LINUX_REBOOT_MAGIC2, LINUX_REBOOT_CMD_KEXEC,
			       NULL), EBUSY,
		       "multikernel instances run on this machine");
		EXPECT_SILENT("unload_kexec_image",
			      syscall(SYS_kexec_file_load, -1, -1, 0, NULL,
				      KEXEC_FILE_UNLOAD), 0);
	}

	x = 2463534242U;
	for (i = 0; i < pattern_size / 4; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		if (((uint32_t *)pattern)[i] != x)
			break;
	}
	mk_result("pattern_intact", i == pattern_size / 4,
		  "the host's RAM changed at offset %#lx", i * 4);

	/* The instance's ticks must go on after the refusal */
	sleep(3);

	/*
	 * A poll() for room that the instance never makes ends as it goes
	 * away: a write would fail now rather than wait
	 */
	out.fd = open("/dev/multikernel", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	full = out.fd >= 0 && msg_fill_until_full(out.fd, &sent);
	if (full)
		pthread_create(&poller, NULL, out_poller, &out);
	usleep(300000);
	waited = full && !out.done;

	/* Stopped, it gives its CPUs back */
	trace_marker('X');
	mk_kmsg_mark();
	ok = mk_tool((const char *const[]){ "multikernel", "stop", "--id", "1",
		  NULL });
	mk_result("tool_stop", ok == 0, "multikernel stop exited %d", ok);
	if (full) {
		for (i = 0; i < 100 && !out.done; i++)
			usleep(20000);
		woke = out.done;
		pthread_join(poller, NULL);
	}
	if (out.fd >= 0)
		close(out.fd);
	mk_result("messages_poll_peer_gone",
		  full && waited && woke && out.ret == 1 &&
		  (out.revents & POLLOUT),
		  "%u sent until %s; poll() %s, %s the stop: %d, revents %#x",
		  sent, full ? "EAGAIN for 1 s" : "an error",
		  waited ? "waited" : "did not wait",
		  woke ? "returned with" : "still waited after", out.ret,
		  out.revents);
	mk_result("stop_logged",
		  mk_kmsg_logged(two_cpus ?
				 "instance 1 shut down: stopped, CPUs 1,3 are free" :
				 "instance 1 shut down: stopped, CPU 1 is free") == 1,
		  "the host did not log that the instance's CPUs are free");
	printf("$ echo 1 > /sys/devices/system/cpu/cpu{1,3}/online\n");
	mk_result("cpus_back",
		  !mk_write_file("/sys/devices/system/cpu/cpu1/online", "1") &&
		  (!two_cpus ||
		   !mk_write_file("/sys/devices/system/cpu/cpu3/online", "1")),
		  "a CPU did not come online in the host: %s", strerror(errno));
	mk_done();
}
