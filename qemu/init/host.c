// SPDX-License-Identifier: GPL-2.0
/*
 * Init of the host tests: the multikernel ABI as user space sees it.
 *
 *   mktest=mk     a CONFIG_MULTIKERNEL=y host booted with multikernel_pool=
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
#include <inttypes.h>
#include <asm/bootparam.h>
#include <linux/kexec.h>
#include <linux/multikernel.h>
#include <linux/reboot.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "mkcalls.h"
#include "mktest.h"

#define SZ_1M	0x100000UL
#define SZ_2M	0x200000UL

static unsigned long pool_start, pool_end;
static char payload[SZ_1M];

static long mk_kexec_load(unsigned long entry, unsigned long nr,
			  struct kexec_segment *segs, unsigned long flags)
{
	return syscall(SYS_kexec_load, entry, nr, segs, flags);
}

/*
 * An image as kexec_load() wants it (Documentation/multikernel.rst, and
 * multikernel load --segments): boot parameters at the start of the
 * payload, for an image at @mem of @size bytes, with a SETUP_MULTIKERNEL
 * entry, the command line, and code that halts the CPU for its kernel.
 * The setup header says the kernel is not relocatable, is 16 bytes long
 * from 0x200 below the entry, and decompresses in the page at ZP_KERNEL.
 */
#define ZP_SETUP_DATA	0x1000
#define ZP_CMDLINE	0x2000
#define ZP_ENTRY	0x3000
#define ZP_KERNEL	0x4000

static void zero_page(unsigned long mem, unsigned long size)
{
	/* cli; 1: hlt; jmp 1b */
	static const unsigned char halt[] = { 0xfa, 0xf4, 0xeb, 0xfd };
	struct boot_params *bp = (struct boot_params *)payload;
	struct setup_data *sd = (struct setup_data *)(payload + ZP_SETUP_DATA);
	struct multikernel_setup_data *mk = (void *)sd->data;

	memset(payload, 0, ZP_ENTRY + sizeof(halt));
	memcpy(&bp->hdr.header, "HdrS", 4);
	bp->hdr.boot_flag = 0xAA55;
	bp->hdr.version = 0x020f;
	bp->hdr.xloadflags = XLF_KERNEL_64 | XLF_MULTIKERNEL_INSTANCE;
	bp->hdr.cmdline_size = 2047;
	bp->hdr.pref_address = mem + ZP_KERNEL;
	bp->hdr.init_size = 0x1000;
	bp->hdr.syssize = 1;
	bp->hdr.cmd_line_ptr = mem + ZP_CMDLINE;
	bp->ext_cmd_line_ptr = (mem + ZP_CMDLINE) >> 32;
	strcpy(payload + ZP_CMDLINE, "console=ttyS1 dis_ucode_ldr");
	bp->e820_table[0].addr = mem;
	bp->e820_table[0].size = size;
	bp->e820_table[0].type = 1;	/* RAM */
	bp->e820_entries = 1;
	bp->hdr.setup_data = mem + ZP_SETUP_DATA;
	sd->type = SETUP_MULTIKERNEL;
	sd->len = sizeof(*mk);
	mk->version = MULTIKERNEL_SETUP_VERSION;
	memcpy(payload + ZP_ENTRY, halt, sizeof(halt));
}

/* kexec_load() of one segment of @size bytes at @mem: zero_page() */
static long load_one(unsigned int id, unsigned long mem, unsigned long size,
		     unsigned long extra_flags)
{
	struct kexec_segment seg = {
		.buf = payload, .bufsz = sizeof(payload),
		.mem = (void *)mem, .memsz = size,
	};

	zero_page(mem, size);
	return mk_kexec_load(mem + ZP_ENTRY, 1, &seg, KEXEC_MULTIKERNEL |
			     KEXEC_MULTIKERNEL_ID(id) | extra_flags);
}

/*
 * Boot parameters the kernel must refuse, each for one reason, and two
 * variants it must accept
 */
enum spoil {
	SPOIL_MAGIC, SPOIL_XLF, SPOIL_VERSION, SPOIL_E820_OUTSIDE,
	SPOIL_E820_TYPE, SPOIL_E820_NONE, SPOIL_E820_FULL, SPOIL_E820_SLOT,
	SPOIL_CMDLINE_OUTSIDE, SPOIL_CMDLINE_UNTERMINATED,
	SPOIL_NO_DIS_UCODE_LDR, SPOIL_INITRD_OUTSIDE, SPOIL_NO_SETUP_DATA,
	SPOIL_SETUP_DATA_TYPE, SPOIL_SETUP_DATA_OUTSIDE,
	SPOIL_SETUP_DATA_OVER_KERNEL,
	SPOIL_SETUP_DATA_LOOP, SPOIL_SETUP_DATA_OVER_ENTRY, SPOIL_HOST_FIELD,
	SPOIL_UART, SPOIL_EFI, SPOIL_SENTINEL, SPOIL_SCREEN, SPOIL_SUBARCH,
	SPOIL_KERNEL_OUTSIDE, SPOIL_KERNEL_OVER_CMDLINE, SPOIL_ALIGNMENT,
	SPOIL_ALIGNMENT_ZERO, SPOIL_SOURCE_OUTSIDE, SPOIL_NO_SYSSIZE,
	SPOIL_ENTRY_LOW, SPOIL_CMDLINE_MEMMAP, SPOIL_CMDLINE_ELFCOREHDR,
	SPOIL_CMDLINE_INITRD, SPOIL_INITRD_NO_LOADER, SPOIL_CMDLINE_RAMOOPS,
	VARIANT_RELOCATABLE, VARIANT_RNG_SEED, VARIANT_INIT_ARGS,
};

/* Put a setup_data entry of @type and @len bytes at @off in the payload */
static struct setup_data *put_setup_data(unsigned long off, uint32_t type,
					 uint32_t len)
{
	struct setup_data *sd = (struct setup_data *)(payload + off);

	sd->next = 0;
	sd->type = type;
	sd->len = len;
	return sd;
}

/* kexec_load() of instance @id, @size bytes at @mem, zero_page() and @how */
static long load_spoiled(unsigned int id, unsigned long mem,
			 unsigned long size, enum spoil how)
{
	struct boot_params *bp = (struct boot_params *)payload;
	struct setup_data *sd = (struct setup_data *)(payload + ZP_SETUP_DATA);
	struct multikernel_setup_data *mk = (void *)sd->data;
	struct kexec_segment seg = {
		.buf = payload, .bufsz = SZ_1M,
		.mem = (void *)mem, .memsz = size,
	};

	zero_page(mem, size);
	switch (how) {
	case SPOIL_MAGIC:
		memcpy(&bp->hdr.header, "HdrX", 4);
		break;
	case SPOIL_XLF:
		bp->hdr.xloadflags = XLF_KERNEL_64;
		break;
	case SPOIL_VERSION:
		bp->hdr.version = 0x020b;
		break;
	case SPOIL_E820_OUTSIDE:
		bp->e820_table[0].size = 2 * SZ_2M;
		break;
	case SPOIL_E820_TYPE:
		bp->e820_table[0].type = 2;	/* reserved */
		break;
	case SPOIL_E820_NONE:
		bp->e820_entries = 0;
		break;
	case SPOIL_E820_SLOT:
		/* The free slot the host fills must be free */
		bp->e820_table[1].addr = 1;
		break;
	case SPOIL_E820_FULL:
		/* No room for the entry the host adds */
		bp->e820_entries = E820_MAX_ENTRIES_ZEROPAGE;
		for (int i = 1; i < E820_MAX_ENTRIES_ZEROPAGE; i++)
			bp->e820_table[i] = bp->e820_table[0];
		break;
	case SPOIL_CMDLINE_OUTSIDE:
		bp->hdr.cmd_line_ptr = mem - 0x1000;
		break;
	case SPOIL_CMDLINE_UNTERMINATED:
		bp->hdr.cmdline_size = 8;
		break;
	case SPOIL_NO_DIS_UCODE_LDR:
		strcpy(payload + ZP_CMDLINE, "console=ttyS1 dis_ucode_ldrx");
		break;
	case SPOIL_INITRD_OUTSIDE:
		bp->hdr.ramdisk_image = mem + SZ_2M;
		bp->hdr.ramdisk_size = 0x1000;
		break;
	case SPOIL_NO_SETUP_DATA:
		bp->hdr.setup_data = 0;
		break;
	case SPOIL_SETUP_DATA_TYPE:
		sd->type = SETUP_E820_EXT;
		break;
	case SPOIL_SETUP_DATA_OUTSIDE:
		/* An entry that crosses the end of the segment, and no more */
		bp->hdr.setup_data = mem + SZ_1M - 0x10;
		put_setup_data(SZ_1M - 0x10, SETUP_MULTIKERNEL, SZ_1M + 0x10);
		break;
	case SPOIL_SETUP_DATA_OVER_KERNEL:
		bp->hdr.setup_data = mem + ZP_KERNEL;
		put_setup_data(ZP_KERNEL, SETUP_RNG_SEED, 8)->next =
			mem + ZP_SETUP_DATA;
		break;
	case SPOIL_SETUP_DATA_LOOP:
		/* An RNG seed that points to itself */
		sd->next = mem + ZP_SETUP_DATA + 0x80;
		put_setup_data(ZP_SETUP_DATA + 0x80, SETUP_RNG_SEED, 8)->next =
			mem + ZP_SETUP_DATA + 0x80;
		break;
	case SPOIL_SETUP_DATA_OVER_ENTRY:
		/* An RNG seed in the bytes of the entry the host fills in */
		sd->next = mem + ZP_SETUP_DATA + 0x30;
		put_setup_data(ZP_SETUP_DATA + 0x30, SETUP_RNG_SEED, 8);
		break;
	case SPOIL_HOST_FIELD:
		mk->tsc_khz = 1000000;
		break;
	case SPOIL_UART:
		mk->uarts = 0x10;
		break;
	case SPOIL_EFI:
		memcpy(&bp->efi_info.efi_loader_signature, "EL64", 4);
		break;
	case SPOIL_SENTINEL:
		/* The instance would drop the high halves the host checked */
		bp->sentinel = 0xff;
		break;
	case SPOIL_SCREEN:
		bp->screen_info.orig_video_lines = 25;
		break;
	case SPOIL_SUBARCH:
		bp->hdr.hardware_subarch = 1;	/* lguest, once */
		break;
	case SPOIL_KERNEL_OUTSIDE:
		bp->hdr.pref_address = mem + SZ_2M - 0x800;
		break;
	case SPOIL_KERNEL_OVER_CMDLINE:
		bp->hdr.pref_address = mem + ZP_CMDLINE;
		break;
	case SPOIL_ALIGNMENT:
		bp->hdr.relocatable_kernel = 1;
		bp->hdr.kernel_alignment = 3 * SZ_1M;
		break;
	case SPOIL_ALIGNMENT_ZERO:
		/* head_64.S would round up to 4 GiB */
		bp->hdr.relocatable_kernel = 1;
		bp->hdr.kernel_alignment = 0;
		break;
	case SPOIL_SOURCE_OUTSIDE:
		/* The decompressor would run from past the segment's end */
		bp->hdr.syssize = SZ_2M / 16;
		break;
	case SPOIL_NO_SYSSIZE:
		bp->hdr.syssize = 0;
		break;
	case SPOIL_ENTRY_LOW:
		/* An entry 0x100 into the segment: the kernel starts below it */
		return mk_kexec_load(mem + 0x100, 1, &seg,
				     KEXEC_MULTIKERNEL |
				     KEXEC_MULTIKERNEL_ID(id));
	case SPOIL_CMDLINE_MEMMAP:
		/* Host RAM below the pool as the instance's */
		strcpy(payload + ZP_CMDLINE,
		       "console=ttyS1 dis_ucode_ldr memmap=64M@0x1000000");
		break;
	case SPOIL_CMDLINE_ELFCOREHDR:
		strcpy(payload + ZP_CMDLINE,
		       "elfcorehdr=0x1000000 console=ttyS1 dis_ucode_ldr");
		break;
	case SPOIL_CMDLINE_INITRD:
		strcpy(payload + ZP_CMDLINE,
		       "console=ttyS1 \"initrdmem=16M,4M\" dis_ucode_ldr");
		break;
	case SPOIL_INITRD_NO_LOADER:
		/* setup_arch() would ignore the initrd: no init */
		bp->hdr.ramdisk_image = mem + SZ_1M;
		bp->hdr.ramdisk_size = 0x1000;
		break;
	case SPOIL_CMDLINE_RAMOOPS:
		strcpy(payload + ZP_CMDLINE,
		       "console=ttyS1 dis_ucode_ldr ramoops.mem_address=0x1000000");
		break;
	case VARIANT_INIT_ARGS:
		/* After "--" it is init's, not the kernel's */
		strcpy(payload + ZP_CMDLINE,
		       "console=ttyS1 dis_ucode_ldr -- memmap=64M@0x1000000");
		break;
	case VARIANT_RELOCATABLE:
		/* Decompressed at the entry's 2 MiB, past the first ones */
		bp->hdr.relocatable_kernel = 1;
		bp->hdr.kernel_alignment = SZ_2M;
		bp->hdr.pref_address = 0;
		break;
	case VARIANT_RNG_SEED:
		sd->next = mem + ZP_SETUP_DATA + 0x80;
		put_setup_data(ZP_SETUP_DATA + 0x80, SETUP_RNG_SEED, 32);
		break;
	}
	return mk_kexec_load(mem + ZP_ENTRY, 1, &seg,
			     KEXEC_MULTIKERNEL | KEXEC_MULTIKERNEL_ID(id));
}

/* kexec_file_load() of @path as instance @id on @cpu */
static long file_load(const char *path, unsigned int id, int cpu)
{
	struct multikernel_load_args args = {
		.size = sizeof(args), .id = id, .cpu = cpu, .mem_size = SZ_2M,
	};

	return mk_file_load(path, &args);
}

static long unload(unsigned int id)
{
	return mk_kexec_load(0, 0, NULL,
			     KEXEC_MULTIKERNEL | KEXEC_MULTIKERNEL_ID(id));
}

static int find_pool(void)
{
	char *iomem = mk_read_file("/proc/iomem"), *line;

	if (!iomem)
		return -1;
	for (line = strtok(iomem, "\n"); line; line = strtok(NULL, "\n")) {
		if (strstr(line, "Multikernel pool") &&
		    sscanf(line, " %lx-%lx", &pool_start, &pool_end) == 2)
			return 0;
	}
	return -1;
}

/* The /proc/multikernel line of instance @id, or NULL. */
static char *proc_line(unsigned int id)
{
	static char found[256];
	char *table = mk_read_file("/proc/multikernel"), *line;
	unsigned int got;

	if (!table)
		return NULL;
	for (line = strtok(table, "\n"); line; line = strtok(NULL, "\n")) {
		if (sscanf(line, "%u", &got) == 1 && got == id) {
			snprintf(found, sizeof(found), "%s", line);
			return found;
		}
	}
	return NULL;
}

static void test_pool_and_proc(void)
{
	char *table, *iomem;

	mk_result("pool_in_iomem", find_pool() == 0 && pool_end > pool_start,
		  "no \"Multikernel pool\" line in /proc/iomem");
	iomem = mk_read_file("/proc/iomem");
	mk_result("shared_memory_in_iomem",
		  iomem && strstr(iomem, "Multikernel shared memory"),
		  "no \"Multikernel shared memory\" line in /proc/iomem");

	table = mk_read_file("/proc/multikernel");
	mk_result("proc_multikernel_header",
		  table && !strncmp(table, "ID  TYPE         STATE    CPU  ENTRY",
				    35),
		  "unexpected table: %s", table ? table : "(missing)");
}

static void test_load(void)
{
	char *line, type[32], state[32], cpu[8];
	unsigned long a = pool_start, b = pool_start + 4 * SZ_1M;
	unsigned long entry = 0, nseg = 0, lo = 0, hi = 0;
	struct kexec_segment seg = {
		.buf = payload, .bufsz = SZ_1M,
		.mem = (void *)(b + 8 * SZ_1M), .memsz = 2 * SZ_1M,
	};
	unsigned int id = 0;

	memset(payload, 0x5a, sizeof(payload));

	EXPECT("load_inside_pool", load_one(1, a, 2 * SZ_1M, 0), 0,
	       "instance 1 loaded");
	line = proc_line(1);
	mk_result("load_listed",
		  line && sscanf(line, "%u %31s %31s %7s %lx %lu %lx-%lx", &id,
				 type, state, cpu, &entry, &nseg, &lo,
				 &hi) == 8 &&
		  id == 1 && !strcmp(type, "multikernel") &&
		  !strcmp(state, "loaded") && !strcmp(cpu, "-") &&
		  entry == a + ZP_ENTRY && nseg == 1 && lo == a &&
		  hi == a + 2 * SZ_1M - 1,
		  "line \"%s\", expected 1 multikernel loaded - 0x%lx 1 0x%lx-0x%lx",
		  line ? line : "(none)", a + ZP_ENTRY, a, a + 2 * SZ_1M - 1);

	EXPECT("load_second_instance", load_one(2, b, 2 * SZ_1M, 0), 0,
	       "instance 2 loaded");
	/* Four low chunks: two more instances take them, a fifth gets none */
	EXPECT("load_third_low_chunk", load_one(3, b + 16 * SZ_1M, SZ_2M, 0),
	       0, "instance 3 loaded");
	EXPECT("load_fourth_low_chunk", load_one(4, b + 18 * SZ_1M, SZ_2M, 0),
	       0, "instance 4 loaded");
	EXPECT("load_no_low_chunk_left", load_one(5, b + 20 * SZ_1M, SZ_2M, 0),
	       ENOSPC, "no low memory chunk left for instance 5");
	EXPECT("unload_third_low_chunk", unload(3), 0, "instance 3 unloaded");
	EXPECT("unload_fourth_low_chunk", unload(4), 0, "instance 4 unloaded");
	EXPECT("load_same_id", load_one(1, b + 2 * SZ_1M, SZ_1M, 0), EEXIST,
	       "instance 1 is already loaded");
	EXPECT("load_overlapping", load_one(3, a, 4 * SZ_1M, 0), EBUSY,
	       "overlaps a loaded instance");
	EXPECT("load_below_pool",
	       load_one(3, pool_start - 2 * SZ_1M, 2 * SZ_1M, 0),
	       EADDRNOTAVAIL, "lies outside the pool");
	EXPECT("load_across_pool_end",
	       load_one(3, pool_end + 1 - 2 * SZ_1M, 4 * SZ_1M, 0),
	       EADDRNOTAVAIL, "lies outside the pool");
	EXPECT("load_id_zero", load_one(0, b + 2 * SZ_1M, SZ_1M, 0), EINVAL,
	       "no instance id");
	EXPECT("load_with_on_crash",
	       load_one(3, b + 2 * SZ_1M, SZ_1M, KEXEC_ON_CRASH), EINVAL,
	       "flags 0x311 do not describe");
	EXPECT("load_id_without_flag",
	       mk_kexec_load(0, 0, NULL, KEXEC_MULTIKERNEL_ID(1)), EINVAL,
	       "flags 0x100 do not describe");
	{
		/* kexec_file_load() is passed 40 bytes that say they are 32 */
		struct multikernel_load_args args = {
			.size = 32, .id = 9, .cpu = 2, .mem_size = SZ_2M,
		};

		EXPECT("file_load_size_field_mismatch",
		       mk_file_load("/init", &args), EINVAL,
		       "size field 32 is not the 40 bytes passed");
	}
	/* id 256 spills into the architecture bits: kexec_load()'s own check */
	EXPECT_SILENT("load_id_256", load_one(256, b + 2 * SZ_1M, SZ_1M, 0),
		      EINVAL);
	EXPECT("load_entry_outside_segments",
	       mk_kexec_load((unsigned long)seg.mem + 2 * SZ_1M, 1, &seg,
			     KEXEC_MULTIKERNEL | KEXEC_MULTIKERNEL_ID(3)),
	       EADDRNOTAVAIL, "lies in no segment");
	seg.mem = (void *)(b + 8 * SZ_1M + 0x800);
	EXPECT("load_unaligned_segment",
	       mk_kexec_load((unsigned long)seg.mem, 1, &seg,
			     KEXEC_MULTIKERNEL | KEXEC_MULTIKERNEL_ID(3)),
	       EADDRNOTAVAIL, "segment list refused (-99)");
	/* Page aligned, not 2 MiB: the CPU starts on 2 MiB pages */
	seg.mem = (void *)(b + 8 * SZ_1M + 0x1000);
	EXPECT("load_segment_not_2m_aligned",
	       mk_kexec_load((unsigned long)seg.mem, 1, &seg,
			     KEXEC_MULTIKERNEL | KEXEC_MULTIKERNEL_ID(3)),
	       EADDRNOTAVAIL, "is not 2 MiB aligned");

	/* Boot parameters built by user space: what the kernel refuses */
	static const struct {
		const char *name;
		enum spoil how;
		int err;
		const char *why;	/* in the kernel's log */
	} spoiled[] = {
		{ "load_no_boot_params", SPOIL_MAGIC, EINVAL,
		  "no segment begins with boot parameters" },
		{ "load_boot_params_not_instance", SPOIL_XLF, ENOEXEC,
		  "built with CONFIG_MULTIKERNEL_INSTANCE" },
		{ "load_boot_protocol_too_old", SPOIL_VERSION, EINVAL,
		  "boot protocol 2.12 or later" },
		{ "load_e820_outside_segments", SPOIL_E820_OUTSIDE, EINVAL,
		  "type 1) is not RAM within one segment" },
		{ "load_e820_not_ram", SPOIL_E820_TYPE, EINVAL,
		  "type 2) is not RAM within one segment" },
		{ "load_e820_empty", SPOIL_E820_NONE, EINVAL,
		  "0 e820 entries" },
		{ "load_e820_full", SPOIL_E820_FULL, EINVAL,
		  "128 e820 entries" },
		{ "load_e820_free_slot_used", SPOIL_E820_SLOT, EINVAL,
		  "more than the setup header" },
		{ "load_cmdline_outside_segments", SPOIL_CMDLINE_OUTSIDE,
		  EINVAL, "bytes of a segment to itself" },
		{ "load_cmdline_unterminated", SPOIL_CMDLINE_UNTERMINATED,
		  EINVAL, "the command line does not end" },
		{ "load_cmdline_without_dis_ucode_ldr", SPOIL_NO_DIS_UCODE_LDR,
		  EINVAL, "lacks dis_ucode_ldr" },
		{ "load_initrd_outside_segments", SPOIL_INITRD_OUTSIDE, EINVAL,
		  "the initrd" },
		{ "load_without_setup_multikernel", SPOIL_NO_SETUP_DATA, EINVAL,
		  "no SETUP_MULTIKERNEL" },
		{ "load_foreign_setup_data", SPOIL_SETUP_DATA_TYPE, EINVAL,
		  "is not for an instance" },
		{ "load_setup_data_outside_segments", SPOIL_SETUP_DATA_OUTSIDE,
		  EINVAL, "ends outside its segment" },
		{ "load_setup_data_over_kernel", SPOIL_SETUP_DATA_OVER_KERNEL,
		  EINVAL, "where the kernel decompresses" },
		{ "load_setup_data_loop", SPOIL_SETUP_DATA_LOOP, EINVAL,
		  "more than 16 setup_data entries" },
		{ "load_setup_data_over_multikernel_entry",
		  SPOIL_SETUP_DATA_OVER_ENTRY, EINVAL, "shares its bytes" },
		{ "load_setup_multikernel_host_field", SPOIL_HOST_FIELD, EINVAL,
		  "must be version 1" },
		{ "load_setup_multikernel_bad_uart", SPOIL_UART, EINVAL,
		  "must be version 1" },
		{ "load_boot_params_efi", SPOIL_EFI, EINVAL,
		  "more than the setup header" },
		{ "load_boot_params_sentinel", SPOIL_SENTINEL, EINVAL,
		  "more than the setup header" },
		{ "load_boot_params_screen", SPOIL_SCREEN, EINVAL,
		  "more than the setup header" },
		{ "load_boot_params_subarch", SPOIL_SUBARCH, EINVAL,
		  "more than the setup header" },
		{ "load_kernel_outside_segments", SPOIL_KERNEL_OUTSIDE, EINVAL,
		  "outside the segments" },
		{ "load_kernel_over_cmdline", SPOIL_KERNEL_OVER_CMDLINE, EINVAL,
		  "decompress over its boot parameters" },
		{ "load_kernel_alignment_not_power_of_2", SPOIL_ALIGNMENT,
		  EINVAL, "is not a power of 2" },
		{ "load_kernel_alignment_zero", SPOIL_ALIGNMENT_ZERO, EINVAL,
		  "kernel alignment 0x0 is not a power of 2" },
		{ "load_kernel_source_outside_segments", SPOIL_SOURCE_OUTSIDE,
		  EINVAL, "+0x200000 does not lie within one segment" },
		{ "load_kernel_without_syssize", SPOIL_NO_SYSSIZE, EINVAL,
		  "+0x0 does not lie within one segment" },
		{ "load_entry_below_kernel_start", SPOIL_ENTRY_LOW, EINVAL,
		  "does not lie within one segment" },
		{ "load_cmdline_memmap", SPOIL_CMDLINE_MEMMAP, EINVAL,
		  "sets memmap=64M@0x1000000: the host alone" },
		{ "load_cmdline_elfcorehdr", SPOIL_CMDLINE_ELFCOREHDR, EINVAL,
		  "sets elfcorehdr=0x1000000:" },
		{ "load_cmdline_initrdmem", SPOIL_CMDLINE_INITRD, EINVAL,
		  "sets \"initrdmem=16M,4M\":" },
		{ "load_initrd_without_type_of_loader", SPOIL_INITRD_NO_LOADER,
		  EINVAL, "an initrd needs type_of_loader set" },
		{ "load_cmdline_ramoops", SPOIL_CMDLINE_RAMOOPS, EINVAL,
		  "sets ramoops.mem_address=0x1000000:" },
	};
	for (size_t i = 0; i < sizeof(spoiled) / sizeof(spoiled[0]); i++)
		EXPECT(spoiled[i].name,
		       load_spoiled(3, b + 8 * SZ_1M, SZ_2M, spoiled[i].how),
		       spoiled[i].err, spoiled[i].why);
	{
		struct kexec_segment two[2] = {
			{ .buf = payload, .bufsz = SZ_1M,
			  .mem = (void *)(b + 8 * SZ_1M), .memsz = SZ_2M },
			{ .buf = payload, .bufsz = SZ_1M,
			  .mem = (void *)(b + 10 * SZ_1M), .memsz = SZ_2M },
		};

		zero_page(b + 8 * SZ_1M, SZ_2M);
		EXPECT("load_two_boot_params",
		       mk_kexec_load(b + 8 * SZ_1M + ZP_ENTRY, 2, two,
				     KEXEC_MULTIKERNEL |
				     KEXEC_MULTIKERNEL_ID(3)),
		       EINVAL, "both begin with boot parameters");
	}
	/* What it accepts besides zero_page()'s image */
	EXPECT("load_relocatable",
	       load_spoiled(3, b + 8 * SZ_1M, 2 * SZ_2M, VARIANT_RELOCATABLE),
	       0, "instance 3 loaded");
	EXPECT("unload_relocatable", unload(3), 0, "instance 3 unloaded");
	EXPECT("load_with_rng_seed",
	       load_spoiled(3, b + 8 * SZ_1M, SZ_2M, VARIANT_RNG_SEED), 0,
	       "instance 3 loaded");
	EXPECT("unload_with_rng_seed", unload(3), 0, "instance 3 unloaded");
	EXPECT("load_init_args_after_dashes",
	       load_spoiled(3, b + 8 * SZ_1M, SZ_2M, VARIANT_INIT_ARGS), 0,
	       "instance 3 loaded");
	EXPECT("unload_init_args_after_dashes", unload(3), 0,
	       "instance 3 unloaded");
	mk_result("failed_loads_not_listed", !proc_line(3) && !proc_line(0),
		  "a refused load shows in /proc/multikernel");
}

/* A reader without CAP_SYS_ADMIN sees the table with zero addresses. */
static void test_proc_unprivileged(void)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		char *line;

		if (setuid(65534))
			_exit(2);
		line = proc_line(1);
		_exit(line && strstr(line, " 0x0000000000000000  ") &&
		      strstr(line, "0x0000000000000000-0x0000000000000000") ?
		      0 : 1);
	}
	waitpid(pid, &status, 0);
	mk_result("proc_hides_addresses_from_users",
		  WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "child status %d", status);
}

static void test_unprivileged_calls(void)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		int bits = 0;

		if (setuid(65534))
			_exit(100);
		if (load_one(4, pool_start + 8 * SZ_1M, SZ_1M, 0) == -1 &&
		    errno == EPERM)
			bits |= 1;
		if (mk_start_instance(1, 1) == -1 && errno == EPERM)
			bits |= 2;
		if (unload(1) == -1 && errno == EPERM)
			bits |= 4;
		_exit(bits);
	}
	waitpid(pid, &status, 0);
	mk_result("eperm_without_cap_sys_boot",
		  WIFEXITED(status) && WEXITSTATUS(status) == 7,
		  "child status %#x (bits: 1 load, 2 start, 4 unload)", status);
}

static void test_start(void)
{
	struct multikernel_start_args args;
	unsigned char bigger[sizeof(args) + 8];
	char *line, state[32], cpu[8];
	int bare_cpu = 1;

	EXPECT("start_on_online_cpu", mk_start_instance(1, 0), EBUSY, "CPU 0 is online");
	EXPECT_SILENT("cpu1_offline",
		      mk_write_file("/sys/devices/system/cpu/cpu1/online", "0"),
		      0);
	EXPECT("start_negative_cpu", mk_start_instance(1, -1), EINVAL,
	       "CPU -1 does not exist");
	EXPECT("start_cpu_too_large", mk_start_instance(1, 4096), EINVAL,
	       "CPU 4096 does not exist");
	EXPECT("start_unknown_id", mk_start_instance(99, 1), ENOENT, "no instance 99");
	EXPECT("start_bare_int_cpu", mk_start(&bare_cpu), EINVAL,
	       "argument size 1 is below");
	EXPECT_SILENT("start_bad_pointer", mk_start(NULL), EFAULT);

	memset(&args, 0, sizeof(args));
	args.size = sizeof(args);
	args.id = 1;
	args.cpu = 1;
	args.flags = 1;
	EXPECT("start_unknown_flags", mk_start(&args), EINVAL,
	       "unknown flags 0x1");

	/*
	 * A newer, larger argument is fine while its new fields are zero:
	 * it gets as far as finding CPU 0 online.
	 */
	memset(bigger, 0, sizeof(bigger));
	args.flags = 0;
	args.cpu = 0;
	args.size = sizeof(bigger);
	memcpy(bigger, &args, sizeof(args));
	EXPECT("start_larger_args_zero_tail", mk_start(bigger), EBUSY,
	       "CPU 0 is online");
	bigger[sizeof(args)] = 1;
	EXPECT("start_larger_args_unknown_field", mk_start(bigger), E2BIG,
	       "fields this kernel does not know");
	args.size = 8192;
	EXPECT("start_args_above_a_page", mk_start(&args), E2BIG,
	       "argument size 8192 is too large");

	/*
	 * Instance 4 halts its CPU, which the host then may not take back;
	 * instances 1 and 2 stay loaded for the unload tests.
	 */
	EXPECT("load_halting_instance", load_one(4, pool_start + 16 * SZ_1M,
						 2 * SZ_1M, 0), 0,
	       "instance 4 loaded");
	EXPECT("start_valid_request", mk_start_instance(4, 1), 0,
	       "instance 4 started on CPU 1");
	line = proc_line(4);
	/* Booting: it never says READY */
	mk_result("started_listed",
		  line && sscanf(line, "%*u %*s %31s %7s", state, cpu) == 2 &&
		  !strcmp(state, "booting") && !strcmp(cpu, "1") &&
		  line[strlen(line) - 1] == '-',
		  "line \"%s\", expected instance 4 booting on CPU 1, not ready",
		  line ? line : "(none)");
	EXPECT("start_running_again", mk_start_instance(4, 1), EBUSY,
	       "start: instance 4 is booting");
	EXPECT("start_other_on_owned_cpu", mk_start_instance(1, 1), EBUSY,
	       "CPU 1 is taken by another instance");
	EXPECT("unload_running", unload(4), EBUSY,
	       "unload: instance 4 is booting");
	/* EPERM: cpu_subsys_online() retries EBUSY for half a second */
	EXPECT("cpu1_online_refused",
	       mk_write_file("/sys/devices/system/cpu/cpu1/online", "1"), EPERM,
	       "CPU 1 runs a multikernel instance");
}

static void test_unload(void)
{
	EXPECT("unload_by_id", unload(1), 0, "instance 1 unloaded");
	mk_result("unloaded_not_listed", !proc_line(1) && proc_line(2),
		  "instance 1 listed or instance 2 missing after unloading 1");
	EXPECT("unload_again", unload(1), ENOENT, "unload: no instance 1");
	EXPECT("reload_freed_range", load_one(1, pool_start, 2 * SZ_1M, 0), 0,
	       "instance 1 loaded");
	EXPECT("unload_1", unload(1), 0, "instance 1 unloaded");
	EXPECT("unload_2", unload(2), 0, "instance 2 unloaded");
	mk_result("table_empty", !proc_line(1) && !proc_line(2),
		  "instances left in /proc/multikernel");
}

/*
 * A start gives up the kexec lock while its CPU boots, which
 * multikernel.test_start_delay_ms stretches: meanwhile the instance shows
 * as starting and cannot be unloaded, other kexec calls go through (a
 * crash kexec would too), and a second start waits for the first.
 */
static void test_start_window(void)
{
	const char *delay =
		"/sys/module/multikernel/parameters/test_start_delay_ms";
	char *line, state[32];
	int status = -1;
	pid_t pid;

	EXPECT("window_load", load_one(6, pool_start + 48 * SZ_1M, 2 * SZ_1M,
				       0), 0, "instance 6 loaded");
	EXPECT_SILENT("cpu3_offline",
		      mk_write_file("/sys/devices/system/cpu/cpu3/online", "0"),
		      0);
	mk_result("window_delay_set", !mk_write_file(delay, "4000"),
		  "%s: %s", delay, strerror(errno));
	pid = fork();
	if (pid == 0)
		_exit(mk_start_instance(6, 3) ? errno : 0);
	sleep(1);
	line = proc_line(6);
	mk_result("window_starting_listed",
		  line && sscanf(line, "%*u %*s %31s", state) == 1 &&
		  !strcmp(state, "starting"),
		  "line \"%s\", expected instance 6 starting",
		  line ? line : "(none)");
	EXPECT("window_unload_refused", unload(6), EBUSY,
	       "unload: instance 6 is starting");
	EXPECT("window_other_load_goes_through",
	       load_one(7, pool_start + 56 * SZ_1M, 2 * SZ_1M, 0), 0,
	       "instance 7 loaded");
	EXPECT("window_other_unload_goes_through", unload(7), 0,
	       "instance 7 unloaded");
	/* reboot() runs one command at a time: this one waits for the first */
	EXPECT("window_second_start_after_first", mk_start_instance(6, 3), EBUSY,
	       "start: instance 6 is booting");
	if (pid > 0)
		waitpid(pid, &status, 0);
	mk_write_file(delay, "0");
	mk_result("window_start_done",
		  WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "the delayed start ended with status %#x", status);
}

/* "@what_@check", valid until the next call */
static const char *check_name(const char *what, const char *check)
{
	static char name[64];

	snprintf(name, sizeof(name), "%s_%s", what, check);
	return name;
}

/*
 * A start that fails for its CPU's sake: one whose CPU never leaves the
 * trampoline times out (test kernels can keep the host from waking it:
 * multikernel.test_start_no_wake), one whose CPU does not accept INIT and
 * STARTUP fails with EIO (multikernel.test_start_eio makes it so).
 * Either way the instance is failed and can only be unloaded, and the CPU
 * is the host's again.
 */
static void test_failed_start(const char *what, const char *knob,
			      unsigned int id, unsigned long off, int err,
			      const char *why)
{
	const char *online = "/sys/devices/system/cpu/cpu2/online";
	char path[96], text[64], *line, state[32];

	snprintf(path, sizeof(path), "/sys/module/multikernel/parameters/%s",
		 knob);
	snprintf(text, sizeof(text), "instance %u loaded", id);
	EXPECT(check_name(what, "load"),
	       load_one(id, pool_start + off, SZ_2M, 0), 0, text);
	EXPECT_SILENT(check_name(what, "cpu2_offline"),
		      mk_write_file(online, "0"), 0);
	mk_result(check_name(what, "knob_set"), !mk_write_file(path, "1"),
		  "%s: %s", path, strerror(errno));
	EXPECT(check_name(what, "start"), mk_start_instance(id, 2), err, why);
	mk_write_file(path, "0");
	line = proc_line(id);
	mk_result(check_name(what, "failed_listed"),
		  line && sscanf(line, "%*u %*s %31s", state) == 1 &&
		  !strcmp(state, "failed"),
		  "line \"%s\", expected instance %u failed",
		  line ? line : "(none)", id);
	snprintf(text, sizeof(text),
		 "instance %u is failed: unload and load it again", id);
	EXPECT(check_name(what, "start_again"), mk_start_instance(id, 2),
	       EBUSY, text);
	snprintf(text, sizeof(text), "instance %u unloaded", id);
	EXPECT(check_name(what, "unload"), unload(id), 0, text);
	EXPECT_SILENT(check_name(what, "cpu2_back_online"),
		      mk_write_file(online, "1"), 0);
}

/*
 * A load whose memory cannot all be mapped read-only (test kernels fail
 * it part way through the second segment: multikernel.test_protect_fail)
 * is refused and leaves both segments writable: the same load then goes
 * through, writing every page of them, where a page left read-only would
 * oops.
 */
static void test_protect_rollback(void)
{
	const char *fail =
		"/sys/module/multikernel/parameters/test_protect_fail";
	static char blank[4096];
	unsigned long mem = pool_start + 72 * SZ_1M;
	struct kexec_segment segs[2] = {
		{ .buf = payload, .bufsz = sizeof(payload),
		  .mem = (void *)mem, .memsz = SZ_2M },
		{ .buf = blank, .bufsz = sizeof(blank),
		  .mem = (void *)(mem + 2 * SZ_2M), .memsz = SZ_2M },
	};
	unsigned long flags = KEXEC_MULTIKERNEL | KEXEC_MULTIKERNEL_ID(9);

	zero_page(mem, SZ_2M);
	mk_result("rollback_fail_set", !mk_write_file(fail, "2"), "%s: %s",
		  fail, strerror(errno));
	EXPECT("rollback_load_refused",
	       mk_kexec_load(mem + ZP_ENTRY, 2, segs, flags), ENOMEM,
	       "instance 9: cannot map its memory read-only");
	mk_write_file(fail, "0");
	EXPECT("rollback_load_again",
	       mk_kexec_load(mem + ZP_ENTRY, 2, segs, flags), 0,
	       "instance 9 loaded");
	EXPECT("rollback_unload", unload(9), 0, "instance 9 unloaded");
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
 * not even an instance loaded before.  Unloading is still fine.
 */
static void test_lockdown(void)
{
	char *state;

	EXPECT("lockdown_load_before", load_one(5, pool_start + 32 * SZ_1M,
						2 * SZ_1M, 0), 0,
	       "instance 5 loaded");
	EXPECT_SILENT("cpu2_offline",
		      mk_write_file("/sys/devices/system/cpu/cpu2/online", "0"),
		      0);
	state = lockdown_state();
	mk_result("lockdown_raised",
		  state && !mk_write_file("/sys/kernel/security/lockdown",
					  "integrity"),
		  "cannot raise lockdown: %s", strerror(errno));
	EXPECT("lockdown_start_refused", mk_start_instance(5, 2), EPERM,
	       "start: refused: the kernel is locked down");
	/* Without the check: ENOEXEC, /init is no bzImage */
	EXPECT("lockdown_file_load_refused", file_load("/init", 6, 2), EPERM,
	       "load: refused: the kernel is locked down");
	EXPECT("lockdown_kexec_load_refused",
	       load_one(6, pool_start + 40 * SZ_1M, 2 * SZ_1M, 0), EPERM,
	       "kexec of unsigned images is restricted");
	/* A stop only takes away: lockdown lets it through to its checks */
	EXPECT("lockdown_stop_allowed", mk_stop_instance(5, 0, 0, NULL), ESRCH,
	       "stop: instance 5 is loaded");
	EXPECT("lockdown_unload_allowed", mk_file_unload(5), 0,
	       "instance 5 unloaded");
}

static void test_mk(void)
{
	test_pool_and_proc();
	if (!pool_end) {
		mk_result("pool_found", 0, "the load tests need the pool");
		return;
	}
	test_load();
	test_proc_unprivileged();
	test_unprivileged_calls();
	test_start();
	test_unload();
	test_failed_start("timeout", "test_start_no_wake", 8, 64 * SZ_1M,
			  ETIMEDOUT, "CPU 2 did not leave the trampoline");
	test_failed_start("eio", "test_start_eio", 10, 80 * SZ_1M, EIO,
			  "start: instance 10 on CPU 2 failed (-5)");
	test_start_window();
	test_protect_rollback();
	mk_check_kmemleak();
	/* Last: lockdown stays */
	test_lockdown();
}

/* Booted with lockdown=integrity: no instance is loaded or started */
static void test_lockdown_boot(void)
{
	char *state = lockdown_state();

	mk_result("lockdown_at_boot", state && strstr(state, "[integrity]"),
		  "lockdown is %s", state ? state : "unknown");
	mk_result("lockdown_pool_found", find_pool() == 0,
		  "no multikernel pool");
	EXPECT("lockdown_boot_file_load", file_load("/init", 1, 1), EPERM,
	       "load: refused: the kernel is locked down");
	EXPECT("lockdown_boot_kexec_load", load_one(1, pool_start, SZ_2M, 0),
	       EPERM, "kexec of unsigned images is restricted");
	EXPECT("lockdown_boot_stop", mk_stop_instance(1, 0, 0, NULL), ENOENT,
	       "stop: no instance 1");
	EXPECT("lockdown_boot_start", mk_start_instance(1, 1), EPERM,
	       "start: refused: the kernel is locked down");
	mk_result("lockdown_boot_nothing_listed", !proc_line(1),
		  "instance 1 is listed");
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
	if (find_pool() || sibling < 0) {
		mk_result("nosmt_setup", 0, "no pool, or no offline thread");
		return;
	}
	EXPECT("nosmt_load", load_one(1, pool_start, SZ_2M, 0), 0,
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
	EXPECT("smt_load_second", load_one(2, pool_start + 4 * SZ_1M, SZ_2M,
					   0), 0, "instance 2 loaded");
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
	char *iomem;

	mk_result("fixed_pool_address",
		  find_pool() == 0 && pool_start == 0x20000000 &&
		  pool_end == 0x23ffffff,
		  "pool at %lx-%lx, expected 20000000-23ffffff", pool_start,
		  pool_end);
	iomem = mk_read_file("/proc/iomem");
	mk_result("fixed_shared_address",
		  iomem && strstr(iomem, "30000000-") &&
		  strstr(strstr(iomem, "30000000-"), ": Multikernel shared memory"),
		  "no shared memory at 0x30000000 in /proc/iomem");
	EXPECT("fixed_load", load_one(1, pool_start, 2 * SZ_1M, 0), 0,
	       "instance 1 loaded");
	EXPECT("fixed_load_past_end", load_one(2, pool_end + 1, 2 * SZ_1M, 0),
	       EADDRNOTAVAIL, "lies outside the pool");
	EXPECT("fixed_unload", unload(1), 0, "instance 1 unloaded");
}

/* CONFIG_MULTIKERNEL=y, no multikernel_pool=: nothing to load into */
static void test_nopool(void)
{
	char *iomem = mk_read_file("/proc/iomem");

	mk_result("nopool_no_memory", iomem && !strstr(iomem, "Multikernel"),
		  "/proc/iomem mentions Multikernel");
	mk_result("nopool_proc_multikernel", !access("/proc/multikernel", R_OK),
		  "/proc/multikernel missing");
	EXPECT("nopool_load_refused", load_one(1, 0x10000000, SZ_1M, 0),
	       EADDRNOTAVAIL, "no pool reserved");
	EXPECT("nopool_start_unknown", mk_start_instance(1, 1), ENOENT,
	       "start: no instance 1");
}

/* CONFIG_MULTIKERNEL=n: no file, no flag, no command, no memory. */
static void test_nomk(void)
{
	char *iomem = mk_read_file("/proc/iomem");

	mk_result("no_proc_multikernel", access("/proc/multikernel", F_OK),
		  "/proc/multikernel exists");
	mk_result("no_multikernel_memory", iomem && !strstr(iomem, "Multikernel"),
		  "/proc/iomem mentions Multikernel");
	EXPECT_SILENT("kexec_flag_refused", load_one(1, 0x10000000, SZ_1M, 0),
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
