// SPDX-License-Identifier: GPL-2.0
/*
 * Init of the kexec compatibility test: plain kexec and kdump, driven by
 * Debian's (dynamically linked) /sbin/kexec, on a CONFIG_MULTIKERNEL=y
 * kernel.  One QEMU run boots several kernels in turn, told apart by
 * mkstage= on /proc/cmdline:
 *
 *   mkstage=1      (booted by QEMU) kexec_load() crash kernel: load, unload,
 *                  load again, CPU 1 offline and online, unload; then
 *                  kexec_load() the next kernel and kexec -e into it
 *   mkstage=2      kexec_file_load() crash kernel: load, CPU 1 offline and
 *                  online (the kernel rebuilds its elfcorehdr: crash
 *                  hotplug), unload; then kexec_file_load() the next
 *                  kernel and kexec -e into it
 *   mkstage=3      kexec_load() crash kernel, then a real panic
 *                  (echo c > /proc/sysrq-trigger)
 *   mkstage=crash  the kdump kernel: /proc/vmcore is there and sane
 *
 * Every kernel is the same bzImage (/boot/bzImage) with the same initramfs:
 * each kernel is booted with retain_initrd, so its initramfs stays readable
 * as /sys/firmware/initrd, and is copied to /tmp for the next load.  The
 * command line of the next kernel is this one's with the mkstage= marker
 * replaced (and, for a crash kernel, without the crashkernel=, pool and
 * retain_initrd reservations).
 *
 * A failed kexec command is run again with -d, so that the log shows what
 * kexec-tools did not like.
 *
 * Each kernel starts its MKTEST counters afresh; only the last stage prints
 * "MKTEST: DONE".  A stage that cannot go on ends the run with DONE, and
 * qemu/kexec-compat.sh notices the stage PASS lines that are missing.
 */
#define _GNU_SOURCE
#include <sys/wait.h>

#include "mktest.h"

#define KEXEC		"/sbin/kexec"
#define KERNEL		"/boot/bzImage"
#define INITRD_SYSFS	"/sys/firmware/initrd"
#define INITRD		"/tmp/initrd.cpio"
#define CPU1_ONLINE	"/sys/devices/system/cpu/cpu1/online"

static char cmdline[4096];

/* Run /sbin/kexec with @args (NULL-terminated), with -d first if @debug;
 * its exit status. */
static int kexec_runv(const char *const *args, int debug)
{
	const char *argv[20];
	int argc = 0, status;
	pid_t pid;

	argv[argc++] = KEXEC;
	if (debug)
		argv[argc++] = "-d";
	while (*args && argc < 19)
		argv[argc++] = *args++;
	argv[argc] = NULL;

	printf("kexec-init: running");
	for (int i = 0; i < argc; i++)
		printf(" %s", argv[i]);
	printf("\n");
	fflush(stdout);

	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		execv(KEXEC, (char *const *)argv);
		printf("kexec-init: cannot execute %s: %s\n", KEXEC,
		       strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	printf("kexec-init: kexec killed by signal %d\n", WTERMSIG(status));
	return 128 + WTERMSIG(status);
}

/*
 * kexec-tools reports many failures only with -d: when a command fails,
 * run it once more with -d so that the log shows why.  The result is the
 * first run's.
 */
static void kexec_ok(const char *name, const char *const *args)
{
	int st = kexec_runv(args, 0);

	mk_result(name, st == 0, "kexec exited with status %d", st);
	if (st) {
		printf("kexec-init: %s failed, again with -d for the log:\n",
		       name);
		kexec_runv(args, 1);
	}
}

#define KEXEC_OK(name, ...)						\
	kexec_ok(name, (const char *const []){ __VA_ARGS__, NULL })

/* The first character of a sysfs file such as kexec_crash_loaded. */
static char sysfs_flag(const char *path)
{
	char *s = mk_read_file(path);

	return s && s[0] ? s[0] : '?';
}

static void expect_flag(const char *name, const char *path, char want)
{
	char got = sysfs_flag(path);

	mk_result(name, got == want, "%s is '%c', expected '%c'", path, got,
		  want);
}

/* This kernel's command line without the words starting with a prefix
 * in @drop (NULL-terminated), followed by @add. */
static const char *next_cmdline(const char *const *drop, const char *add)
{
	static char out[4096];
	char copy[4096], *word, *save;
	size_t len = 0;

	snprintf(copy, sizeof(copy), "%s", cmdline);
	out[0] = '\0';
	for (word = strtok_r(copy, " \n", &save); word;
	     word = strtok_r(NULL, " \n", &save)) {
		const char *const *d;

		for (d = drop; *d; d++)
			if (!strncmp(word, *d, strlen(*d)))
				break;
		if (*d)
			continue;
		len += snprintf(out + len, sizeof(out) - len, "%s ", word);
	}
	snprintf(out + len, sizeof(out) - len, "%s", add);
	return out;
}

static const char *stage_cmdline(const char *marker)
{
	static const char *const drop[] = { "mkstage=", NULL };

	return next_cmdline(drop, marker);
}

/*
 * The crash kernel's: it checks that its vmcore leaves out mkexclude= and
 * that it does not run in mkkeep=
 */
static const char *crash_cmdline(void)
{
	static const char *const drop[] = {
		"mkstage=", "crashkernel=", "multikernel_pool=",
		"retain_initrd", NULL
	};
	static char add[256];
	char pool[64], shared[64], trampoline[64];

	mk_iomem_range("Multikernel pool", pool, sizeof(pool));
	mk_iomem_range("Multikernel shared memory", shared, sizeof(shared));
	mk_iomem_range("Real-mode trampoline", trampoline, sizeof(trampoline));
	snprintf(add, sizeof(add),
		 "nr_cpus=1 irqpoll reset_devices mkstage=crash mkexclude=%s,%s mkkeep=%s",
		 pool, shared, trampoline);
	return next_cmdline(drop, add);
}

/* --command-line=@line for kexec, in @opt */
static const char *cmdline_opt(char *opt, size_t size, const char *line)
{
	snprintf(opt, size, "--command-line=%s", line);
	return opt;
}

#define CMDLINE_OPT(buf, line)	cmdline_opt(buf, sizeof(buf), line)

/* Copy this kernel's initramfs (kept by retain_initrd) to INITRD. */
static int save_initrd(void)
{
	static char buf[65536];
	int in, out, ret = 0;
	ssize_t n;
	off_t total = 0;

	in = open(INITRD_SYSFS, O_RDONLY);
	if (in < 0)
		return -1;
	out = open(INITRD, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		if (write(out, buf, n) != n) {
			ret = -1;
			break;
		}
		total += n;
	}
	if (n < 0 || total == 0)
		ret = -1;
	close(in);
	close(out);
	return ret;
}

static int range_of(const char *iomem_name, unsigned long *start,
		    unsigned long *end)
{
	return mk_iomem_find(iomem_name, 0, start, end, NULL, 0);
}

/* The name of the top-level /proc/iomem entry holding @addr, or "none" */
static void iomem_top_name(unsigned long addr, char *buf, size_t size)
{
	unsigned long start, end;

	if (mk_iomem_find(NULL, addr, &start, &end, buf, size))
		snprintf(buf, size, "none");
}

/*
 * kexec-tools dumps every "System RAM" entry of /proc/iomem but "Crash
 * kernel", and lets its kdump kernel run in the first below 640 KiB: the
 * pool, the shared area and the trampoline must not lie in one.
 */
static void check_instances_not_system_ram(void)
{
	static const char *const names[] = {
		"Multikernel pool", "Multikernel shared memory",
		"Real-mode trampoline"
	};
	unsigned long start, end;
	char range[64], top[64];
	unsigned int i;

	for (i = 0; i < 3; i++) {
		mk_iomem_range(names[i], range, sizeof(range));
		if (sscanf(range, "%lx-%lx", &start, &end) != 2) {
			mk_result("iomem_instances_not_system_ram", 0,
				  "/proc/iomem has no %s", names[i]);
			return;
		}
		iomem_top_name(start, top, sizeof(top));
		printf("kexec-init: %s %s lies in \"%s\"\n", names[i], range,
		       top);
		if (!strcmp(top, "System RAM")) {
			mk_result("iomem_instances_not_system_ram", 0,
				  "%s %s lies in System RAM", names[i], range);
			return;
		}
	}
	mk_result("iomem_instances_not_system_ram", 1, "");
}

/* Both reservations made at boot, and apart from each other. */
static void check_reservations(const char *name, int want_crash)
{
	unsigned long cs = 0, ce = 0, ps = 0, pe = 0;
	int crash = range_of("Crash kernel", &cs, &ce) == 0;
	int pool = range_of("Multikernel pool", &ps, &pe) == 0;

	if (want_crash)
		mk_result(name, crash && pool && (ce < ps || pe < cs),
			  "/proc/iomem: Crash kernel %s %#lx-%#lx, Multikernel pool %s %#lx-%#lx",
			  crash ? "at" : "missing", cs, ce,
			  pool ? "at" : "missing", ps, pe);
	else
		mk_result(name, !crash,
			  "/proc/iomem has a Crash kernel region %#lx-%#lx",
			  cs, ce);
}

static int cpu1_set(const char *val)
{
	return mk_write_file(CPU1_ONLINE, val);
}

/* CPU 1 offline and online again with the crash kernel loaded. */
static void hotplug_with_crash_loaded(const char *prefix)
{
	char name[64];
	int ret;

	printf("kexec-init: /sys/devices/system/cpu/crash_hotplug is %c\n",
	       sysfs_flag("/sys/devices/system/cpu/crash_hotplug"));
	snprintf(name, sizeof(name), "%s_cpu1_offline", prefix);
	ret = cpu1_set("0");
	mk_expect_errno(name, ret, errno, 0);
	snprintf(name, sizeof(name), "%s_cpu1_online", prefix);
	ret = cpu1_set("1");
	mk_expect_errno(name, ret, errno, 0);
	snprintf(name, sizeof(name), "%s_cpu1_is_online", prefix);
	expect_flag(name, CPU1_ONLINE, '1');
	snprintf(name, sizeof(name), "%s_crash_still_loaded", prefix);
	expect_flag(name, "/sys/kernel/kexec_crash_loaded", '1');
}

/* kexec -e returns only if it failed. */
static void __attribute__((noreturn)) exec_next(const char *name,
						const char *sysfile)
{
	int st;

	expect_flag(name, sysfile, '1');
	st = kexec_runv((const char *const []){ "-e", NULL }, 0);
	mk_result("kexec_e_returned", 0, "kexec -e came back with status %d",
		  st);
	mk_done();
}

static void __attribute__((noreturn)) stage1(void)
{
	char crash_opt[4200], next_opt[4200];
	const char *crash = CMDLINE_OPT(crash_opt, crash_cmdline());

	check_reservations("stage1_crashkernel_and_pool", 1);

	/* kexec_load(KEXEC_ON_CRASH) */
	KEXEC_OK("stage1_crash_load", "-p", "-c", KERNEL,
		 "--initrd=" INITRD, crash);
	expect_flag("stage1_crash_loaded", "/sys/kernel/kexec_crash_loaded",
		    '1');
	KEXEC_OK("stage1_crash_unload", "-p", "-u", "-c");
	expect_flag("stage1_crash_unloaded", "/sys/kernel/kexec_crash_loaded",
		    '0');
	KEXEC_OK("stage1_crash_reload", "-p", "-c", KERNEL,
		 "--initrd=" INITRD, crash);
	expect_flag("stage1_crash_reloaded", "/sys/kernel/kexec_crash_loaded",
		    '1');
	hotplug_with_crash_loaded("stage1");
	KEXEC_OK("stage1_crash_unload_again", "-p", "-u", "-c");
	expect_flag("stage1_crash_unloaded_again",
		    "/sys/kernel/kexec_crash_loaded", '0');

	/* kexec_load() of the next kernel */
	KEXEC_OK("stage1_load_stage2", "-l", "-c", KERNEL, "--initrd=" INITRD,
		 CMDLINE_OPT(next_opt, stage_cmdline("mkstage=2")));
	exec_next("stage1_kexec_loaded", "/sys/kernel/kexec_loaded");
}

static void __attribute__((noreturn)) stage2(void)
{
	char crash_opt[4200], next_opt[4200];

	mk_result("stage2_reached", 1, "");
	check_reservations("stage2_crashkernel_and_pool", 1);

	/* kexec_file_load(KEXEC_FILE_ON_CRASH): the kernel builds the
	 * elfcorehdr, and rebuilds it on CPU hotplug. */
	KEXEC_OK("stage2_crash_file_load", "-p", "-s", KERNEL,
		 "--initrd=" INITRD, CMDLINE_OPT(crash_opt, crash_cmdline()));
	expect_flag("stage2_crash_file_loaded",
		    "/sys/kernel/kexec_crash_loaded", '1');
	/* kexec_file_load() crash images take CPU hotplug updates. */
	expect_flag("stage2_crash_hotplug_updates",
		    "/sys/devices/system/cpu/crash_hotplug", '1');
	hotplug_with_crash_loaded("stage2");
	KEXEC_OK("stage2_crash_file_unload", "-p", "-u", "-s");
	expect_flag("stage2_crash_file_unloaded",
		    "/sys/kernel/kexec_crash_loaded", '0');

	/* kexec_file_load() of the next kernel */
	KEXEC_OK("stage2_file_load_stage3", "-l", "-s", KERNEL,
		 "--initrd=" INITRD,
		 CMDLINE_OPT(next_opt, stage_cmdline("mkstage=3")));
	exec_next("stage2_kexec_loaded", "/sys/kernel/kexec_loaded");
}

static void __attribute__((noreturn)) stage3(void)
{
	char crash_opt[4200];
	int fd;

	mk_result("stage3_reached", 1, "");
	check_reservations("stage3_crashkernel_and_pool", 1);
	check_instances_not_system_ram();

	KEXEC_OK("stage3_crash_load", "-p", "-c", KERNEL, "--initrd=" INITRD,
		 CMDLINE_OPT(crash_opt, crash_cmdline()));
	expect_flag("stage3_crash_loaded", "/sys/kernel/kexec_crash_loaded",
		    '1');

	printf("kexec-init: panicking through /proc/sysrq-trigger\n");
	fflush(stdout);
	sync();
	fd = open("/proc/sysrq-trigger", O_WRONLY);
	if (fd < 0) {
		mk_result("stage3_sysrq_trigger", 0,
			  "cannot open /proc/sysrq-trigger (CONFIG_MAGIC_SYSRQ?): %s",
			  strerror(errno));
		mk_done();
	}
	if (write(fd, "c", 1) != 1)
		printf("kexec-init: write to /proc/sysrq-trigger: %s\n",
		       strerror(errno));
	mk_result("stage3_panic", 0, "still running after sysrq c");
	mk_done();
}

/* The ELF core header of /proc/vmcore: notes and non-overlapping memory. */
static void check_vmcore(void)
{
	Elf64_Phdr ph[MK_VMCORE_MAX_PH];
	int n = mk_vmcore_headers(ph), notes = 0, loads = 0;
	unsigned long long bytes = 0;
	int i, j, overlap = -1;

	if (n < 0) {
		mk_result("crash_vmcore_header", 0,
			  "/proc/vmcore is missing or not a 64-bit ELF core file");
		return;
	}
	for (i = 0; i < n; i++) {
		if (ph[i].p_type == PT_NOTE)
			notes++;
		if (ph[i].p_type != PT_LOAD)
			continue;
		printf("kexec-init: PT_LOAD %d: phys %#llx-%#llx virt %#llx\n", i,
		       (unsigned long long)ph[i].p_paddr,
		       (unsigned long long)(ph[i].p_paddr + ph[i].p_memsz - 1),
		       (unsigned long long)ph[i].p_vaddr);
		/* The kernel text mapping aliases part of System RAM. */
		if (ph[i].p_vaddr >= MK_KERNEL_TEXT_MAP)
			continue;
		loads++;
		bytes += ph[i].p_memsz;
		for (j = 0; j < i; j++)
			if (ph[j].p_type == PT_LOAD &&
			    ph[j].p_vaddr < MK_KERNEL_TEXT_MAP &&
			    ph[i].p_paddr < ph[j].p_paddr + ph[j].p_memsz &&
			    ph[j].p_paddr < ph[i].p_paddr + ph[i].p_memsz)
				overlap = i;
	}
	printf("kexec-init: /proc/vmcore: %d program headers, %d PT_NOTE, %d RAM PT_LOAD, %llu MiB\n",
	       n, notes, loads, bytes >> 20);
	mk_result("crash_vmcore_header", notes >= 1 && loads >= 1,
		  "%d PT_NOTE and %d RAM PT_LOAD headers", notes, loads);
	mk_result("crash_vmcore_no_overlap", overlap < 0,
		  "PT_LOAD %d (%#llx+%#llx) overlaps an earlier one", overlap,
		  overlap < 0 ? 0ULL : (unsigned long long)ph[overlap].p_paddr,
		  overlap < 0 ? 0ULL : (unsigned long long)ph[overlap].p_memsz);
}

/*
 * kexec-tools built the ELF core header from /proc/iomem: it must leave
 * out the host's pool and shared area, which mkexclude= names.
 */
static void check_vmcore_excludes(void)
{
	Elf64_Phdr ph[MK_VMCORE_MAX_PH];
	int n = mk_vmcore_headers(ph), ranges = 0, held = 0;
	const char *p = strstr(cmdline, " mkexclude=");
	unsigned long long start, end;

	for (p = p ? p + strlen(" mkexclude=") : NULL;
	     p && sscanf(p, "%llx-%llx", &start, &end) == 2;
	     p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
		ranges++;
		if (n >= 0 && mk_vmcore_holds(ph, n, start, end)) {
			held++;
			printf("kexec-init: vmcore holds %#llx-%#llx\n", start,
			       end);
		}
	}
	mk_result("crash_vmcore_leaves_out_instances",
		  n >= 0 && ranges == 2 && !held,
		  "%d of the %d ranges of mkexclude= in the vmcore%s", held,
		  ranges, n < 0 ? " (no vmcore)" : "");
}

/*
 * kexec-tools gave this kernel the host's first System RAM below 640 KiB
 * to run in: not the host's trampoline (mkkeep=), which running instances
 * bring their CPUs up through
 */
static void check_trampoline_kept(void)
{
	char *iomem = mk_read_file("/proc/iomem"), *line, *save, *colon;
	const char *p = strstr(cmdline, " mkkeep=");
	unsigned long long start, end, s, e;
	int overlap = 0;

	if (!p || sscanf(p, " mkkeep=%llx-%llx", &start, &end) != 2) {
		mk_result("crash_kernel_off_trampoline", 0,
			  "no mkkeep=START-END on the command line");
		return;
	}
	for (line = iomem ? strtok_r(iomem, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		colon = strstr(line, " : ");
		if (colon && !strcmp(colon + 3, "System RAM") &&
		    sscanf(line, " %llx-%llx", &s, &e) == 2 && s <= end &&
		    start <= e) {
			printf("kexec-init: System RAM %llx-%llx holds the host's trampoline %llx-%llx\n",
			       s, e, start, end);
			overlap++;
		}
	}
	mk_result("crash_kernel_off_trampoline", iomem && !overlap,
		  "%d System RAM ranges hold the host's trampoline", overlap);
}

static void __attribute__((noreturn)) stage_crash(void)
{
	mk_result("crash_kernel_booted", access("/proc/vmcore", F_OK) == 0,
		  "no /proc/vmcore: this is not a kdump kernel");
	mk_result("crash_elfcorehdr_on_cmdline",
		  strstr(cmdline, "elfcorehdr=") != NULL,
		  "no elfcorehdr= on the command line: %s", cmdline);
	check_vmcore();
	check_vmcore_excludes();
	check_trampoline_kept();
	mk_done();
}

/* Where KASLR put the kernel text: kexec -p (kexec-tools) must find it. */
static void print_stext(void)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[256];
	unsigned long long addr;

	while (f && fgets(line, sizeof(line), f)) {
		if (!strstr(line, " _stext\n") ||
		    sscanf(line, "%llx", &addr) != 1)
			continue;
		printf("kexec-init: _stext at %#llx (__START_KERNEL_map + %llu MiB)\n",
		       addr, (addr - MK_KERNEL_TEXT_MAP) >> 20);
		break;
	}
	if (f)
		fclose(f);
}

int main(void)
{
	char stage[16] = "", *s;

	mk_mount_basics();
	s = mk_read_file("/proc/cmdline");
	snprintf(cmdline, sizeof(cmdline), "%s", s ? s : "");
	cmdline[strcspn(cmdline, "\n")] = '\0';
	s = strstr(cmdline, " mkstage=");
	if (s)
		snprintf(stage, sizeof(stage), "%.*s",
			 (int)strcspn(s + 9, " "), s + 9);
	printf("MKTEST: START kexec tests, stage %s\n", stage);
	printf("kexec-init: command line: %s\n", cmdline);
	print_stext();

	if (!strcmp(stage, "crash"))
		stage_crash();
	if (strcmp(stage, "1") && strcmp(stage, "2") && strcmp(stage, "3")) {
		mk_result("stage", 0, "boot with mkstage=1 (got \"%s\")",
			  cmdline);
		mk_done();
	}

	if (save_initrd()) {
		mk_result("initrd_saved", 0,
			  "cannot copy %s to %s (boot with retain_initrd): %s",
			  INITRD_SYSFS, INITRD, strerror(errno));
		mk_done();
	}
	if (access(KEXEC, X_OK) || access(KERNEL, R_OK)) {
		mk_result("initramfs_complete", 0, "%s or %s is missing",
			  KEXEC, KERNEL);
		mk_done();
	}

	if (!strcmp(stage, "1"))
		stage1();
	if (!strcmp(stage, "2"))
		stage2();
	stage3();
}
