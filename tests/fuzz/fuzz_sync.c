// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fuzz_sync.c - libFuzzer target for the packed sync command and the range
 * check of kernel/common, as the drivers use them together: decode a value
 * written to sync_for_cpu/sync_for_device, then check the range against the
 * object size.
 *
 * Invariants: a packed command re-encodes to the same value (bit 1, the
 * only bit the packing ignores, cleared and bit 0 set), its direction is
 * valid, and udmem_range_ok() agrees with 128-bit arithmetic.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "udmem_range.h"
#include "udmem_sync.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	u64 in[3] = { 0, 0, 0 };
	struct udmem_sync_cmd cmd;
	unsigned __int128 end;
	u64 value, total, re;

	memcpy(in, data, size < sizeof(in) ? size : sizeof(in));
	value = in[0];
	total = in[1];

	udmem_sync_cmd_decode(value, &cmd);
	if (!udmem_sync_dir_valid(cmd.dir))
		abort();
	switch (cmd.kind) {
	case UDMEM_SYNC_NONE:
		if (value != 0)
			abort();
		break;
	case UDMEM_SYNC_STORED:
		if (value != 1)
			abort();
		break;
	case UDMEM_SYNC_PACKED:
		if (value <= 1 || cmd.offset > 0xFFFFFFFFull || cmd.size & 0xF ||
		    cmd.size > 0xFFFFFFF0ull)
			abort();
		re = udmem_sync_cmd_encode(cmd.offset, cmd.size, cmd.dir);
		/* Direction 3 decodes as bidirectional (0): compare without it. */
		if ((re & ~0xEull) != ((value & ~0xEull) | 1))
			abort();
		if (((value >> 2) & 3) != 3 && cmd.dir != ((value >> 2) & 3))
			abort();
		break;
	default:
		abort();
	}

	/* The range check against exact arithmetic, for the decoded command
	 * and for raw values. */
	end = (unsigned __int128)cmd.offset + cmd.size;
	if (udmem_range_ok(cmd.offset, cmd.size, total) != (end <= total))
		abort();
	end = (unsigned __int128)in[0] + in[2];
	if (udmem_range_ok(in[0], in[2], total) != (end <= total))
		abort();
	if ((udmem_range_check(in[0], in[2], total) == 0) != (end <= total))
		abort();
	return 0;
}
