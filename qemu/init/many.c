// SPDX-License-Identifier: GPL-2.0
/*
 * Init of the many-instances test (qemu/spawn.sh --many): a host on CPU 0
 * runs an instance on every other CPU at once (fifteen on QEMU's 16-CPU
 * machine), the small instance kernel without a console (multikernel load
 * --uart none), INSTANCE_MB each from a pool of that many times as much.
 * No instance takes memory below 1 MiB, which held four at most before.
 *
 *   - each loads, starts on its CPU and says READY within 20 s while the
 *     ones before it run, and answers a message (its init's echo service);
 *   - once all run, each answers again;
 *   - the start-to-READY time of the first and of the last is reported
 *     ("MKSPAWN: ready_ms first=A last=B"), for qemu/spawn.sh;
 *   - all stop and unload, their CPUs come back online, and nothing
 *     leaks: the whole pool loads one instance again, kmemleak.
 *
 * With mkbench on the command line (make bench, on a host without
 * kmemleak) it only reports the times and skips the leak check.
 */
#define _GNU_SOURCE
#include <linux/multikernel.h>
#include <sys/sysinfo.h>

#include "mktest.h"

#define INSTANCE_MB	48
/* The host's message channels: one per instance */
#define MAX_INSTANCES	16

static unsigned int nr;

static char *ready_ms(unsigned int id)
{
	char path[64], *text;

	snprintf(path, sizeof(path),
		 "/sys/kernel/multikernel/instances/%u/ready_ms", id);
	text = mk_read_file(path);
	if (text)
		text[strcspn(text, "\n")] = '\0';
	return text ? text : "?";
}

static int set_online(unsigned int cpu, const char *value)
{
	char path[64];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u/online",
		 cpu);
	return mk_write_file(path, value);
}

/* Load instance @id on CPU @id, start it and wait for its READY */
static bool spawn(unsigned int id, const char *token)
{
	char idstr[8], append[64], name[32], mem[16];

	snprintf(idstr, sizeof(idstr), "%u", id);
	snprintf(mem, sizeof(mem), "%uM", INSTANCE_MB);
	snprintf(append, sizeof(append), "mktoken=%s-%u", token, id);
	snprintf(name, sizeof(name), "offline_cpu%u", id);
	mk_result(name, !set_online(id, "0"), "cannot take CPU %u offline: %s",
		  id, strerror(errno));
	snprintf(name, sizeof(name), "load_%u", id);
	if (mk_tool((const char *const[]){ "multikernel", "load", "--id",
		    idstr, "--cpus", idstr, "--mem", mem, "--uart",
		    "none", "--initrd", "/instance.cpio", "--append", append,
		    "/bzImage", NULL })) {
		mk_result(name, 0, "multikernel load failed");
		return false;
	}
	mk_result(name, 1, "");
	snprintf(name, sizeof(name), "ready_%u", id);
	if (mk_start_instance(id, id)) {
		mk_result(name, 0, "start: %s", strerror(errno));
		return false;
	}
	if (!mk_wait_state(id, "running", 20000)) {
		mk_result(name, 0, "instance %u is %s 20 s after its start", id,
			  mk_state_of(id));
		return false;
	}
	mk_result(name, 1, "");
	snprintf(name, sizeof(name), "echo_%u", id);
	mk_result(name, mk_echoes(id), "instance %u does not answer", id);
	return true;
}

int main(void)
{
	const char *token;
	char name[32], pool[16], *first = NULL;
	unsigned int id, up = 0;
	bool all_echo = true;

	mk_mount_basics();
	printf("MKTEST: START many instances test\n");
	token = getenv("mktoken");
	if (!token) {
		mk_result("token", 0, "boot with mktoken=VALUE");
		mk_done();
	}
	/* Every CPU but the host's, as far as there are channels */
	nr = get_nprocs_conf() - 1;
	if (nr > MAX_INSTANCES)
		nr = MAX_INSTANCES;
	mk_result("cpus", nr >= 1, "no CPU beside the host's");
	printf("MKTEST: %u instances of %u MiB\n", nr, INSTANCE_MB);
	for (id = 1; id <= nr && spawn(id, token); id++) {
		up = id;
		if (id == 1)
			first = strdup(ready_ms(1));
	}
	if (up == nr) {
		for (id = 1; id <= nr; id++)
			all_echo &= mk_echoes(id);
		mk_result("all_echo", all_echo,
			  "not every one of the %u instances answers", nr);
		mk_report("MKSPAWN: ready_ms first=%s last=%s of %u\n", first,
			  ready_ms(nr), nr);
	}

	for (id = 1; id <= up; id++) {
		snprintf(name, sizeof(name), "stop_%u", id);
		EXPECT(name, mk_stop_instance(id, MULTIKERNEL_STOP_FORCE, 0,
					      NULL), 0, "stopped");
		snprintf(name, sizeof(name), "unload_%u", id);
		EXPECT(name, mk_file_unload(id), 0, "unloaded");
		snprintf(name, sizeof(name), "online_cpu%u", id);
		mk_result(name, !set_online(id, "1"),
			  "CPU %u does not come back: %s", id,
			  strerror(errno));
	}
	/* Nothing of them is left in the pool */
	snprintf(pool, sizeof(pool), "%uM", nr * INSTANCE_MB);
	mk_result("whole_pool", !mk_tool((const char *const[]){ "multikernel",
		  "load", "--id", "1", "--cpus", "1", "--mem", pool,
		  "--uart", "none", "/bzImage", NULL }),
		  "an instance of all the pool does not load");
	EXPECT("unload_whole_pool", mk_file_unload(1), 0, "unloaded");
	if (!getenv("mkbench"))
		mk_check_kmemleak();
	mk_done();
}
