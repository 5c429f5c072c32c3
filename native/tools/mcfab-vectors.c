// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * mcfab-vectors: reproduce the soft-fabric geometry vectors that regmap/gen.py
 * evaluates from regmap/memchan.toml, with the C code every C user runs
 * (mcfab_geometry of mcfab.h over the generated mc_sf_* functions, which the
 * ivshmem driver calls too). The Java build reproduces the same file.
 *
 *   mcfab-vectors regmap/vectors/soft-fabric-geometry.csv
 *   mcfab-vectors regmap/vectors/system-pages.csv      (the mc_sys_* offsets)
 *   mcfab-vectors regmap/vectors/tx-pct-rule.csv       (mc_tx_pct_rule, the driver's check)
 *
 * Exit 0 when every row matches, 1 (listing the rows) otherwise.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "mcfab.h"

/* One row of system-pages.csv: function,page_size,argument,value; 1 when it matches */
static int system_row(const char *line)
{
	char fn[32];
	unsigned long long ps, arg = 0, want, got;
	int n = 0;

	if (sscanf(line, "%31[a-z_],%llu,%n", fn, &ps, &n) != 2)
		return -1;
	if (line[n] != ',' && sscanf(line + n, "%llu", &arg) != 1)
		return -1;
	if (sscanf(strchr(line + n, ',') + 1, "%llu", &want) != 1)
		return -1;
	if (!strcmp(fn, "bid_in_row"))
		got = mc_sys_bid_in_row(arg);
	else if (!strcmp(fn, "lock_row_size"))
		got = mc_sys_lock_row_size(arg);
	else if (!strcmp(fn, "cas_lock_word"))
		got = mc_sys_cas_lock_word(arg);
	else if (!strcmp(fn, "lock_bid"))
		got = mc_sys_lock_bid(ps, arg);
	else if (!strcmp(fn, "member_slot"))
		got = mc_sys_member_slot(ps, arg);
	else if (!strcmp(fn, "directory"))
		got = mc_sys_directory(ps);
	else if (!strcmp(fn, "mcast_group"))
		got = mc_sys_mcast_group(ps, arg);
	else if (!strcmp(fn, "region_entry"))
		got = mc_sys_region_entry(ps, arg);
	else if (!strcmp(fn, "region_capacity"))
		got = mc_sys_region_capacity(ps);
	else
		return -1;
	if (got != want)
		printf("%s: C computes %llu\n", line, got);
	return got == want;
}

/* One row of tx-pct-rule.csv: tx_pct_rule,entry,max_nodes,caps,emulated,verdict; 1 when it matches */
static int tx_rule_row(const char *line)
{
	unsigned int e, nodes, caps, verdict;
	const char *got;
	int emulated;
	char want[32];

	if (sscanf(line, "tx_pct_rule,%u,%u,%u,%d,%31s", &e, &nodes, &caps, &emulated, want) != 5)
		return -1;
	verdict = mc_tx_pct_rule(e, nodes, caps, emulated);
	got = mc_tx_rule_name(verdict);
	if (!got) {
		printf("%s: C gives the unnamed verdict %u\n", line, verdict);
		return 0;
	}
	if (strcmp(got, want))
		printf("%s: C gives %s\n", line, got);
	return !strcmp(got, want);
}

int main(int argc, char **argv)
{
	char line[512], got[256], want[256];
	unsigned long long size, ps, nodes;
	unsigned int rows = 0, bad = 0;
	struct mcfab_geom g;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: mcfab-vectors VECTORS.csv\n");
		return 2;
	}
	f = fopen(argv[1], "r");
	if (!f) {
		perror(argv[1]);
		return 2;
	}
	while (fgets(line, sizeof(line), f)) {
		const char *problem;
		int n;

		line[strcspn(line, "\n")] = 0;
		if (line[0] == '#' || !strncmp(line, "file_size,", 10) || !strncmp(line, "function,", 9) ||
		    !strncmp(line, "tx_pct_rule,entry,", 18))
			continue;
		if (line[0] >= 'a' && line[0] <= 'z') {
			n = strncmp(line, "tx_pct_rule,", 12) ? system_row(line) : tx_rule_row(line);
			if (n < 0) {
				fprintf(stderr, "%s: bad row: %s\n", argv[1], line);
				return 2;
			}
			rows++;
			bad += !n;
			continue;
		}
		if (sscanf(line, "%llu,%llu,%llu,%n", &size, &ps, &nodes, &n) != 3) {
			fprintf(stderr, "%s: bad row: %s\n", argv[1], line);
			return 2;
		}
		snprintf(want, sizeof(want), "%s", line + n);
		problem = mc_sf_geometry_problem(size, ps, nodes);
		if (problem) {
			snprintf(got, sizeof(got), "%s,,,,,,,,", problem);
			if (!mcfab_geometry(&g, size, ps, nodes))
				snprintf(got, sizeof(got), "mcfab_geometry accepted a request refused on %s", problem);
		} else if (mcfab_geometry(&g, size, ps, nodes)) {
			snprintf(got, sizeof(got), "mcfab_geometry refused a valid request");
		} else {
			snprintf(got, sizeof(got), ",%u,%llu,%llu,%llu,%llu,%llu,%llu,%llu", g.page_count,
				 mc_sf_rx_pct_offset(g.page_size, g.page_count),
				 mc_sf_page_counters_offset(g.page_size, g.page_count),
				 (unsigned long long)g.node_block_size,
				 mc_sf_stripes_offset(g.page_size, g.page_count, g.max_nodes),
				 mc_sf_stripe_size(g.page_size, g.page_count), (unsigned long long)g.data_offset,
				 mc_sf_data_end(g.page_size, g.page_count, g.max_nodes));
		}
		rows++;
		if (strcmp(got, want)) {
			bad++;
			printf("size=%llu page_size=%llu nodes=%llu: want %s, C computes %s\n",
			       size, ps, nodes, want, got);
		}
	}
	fclose(f);
	if (!rows) {
		fprintf(stderr, "%s: no vectors\n", argv[1]);
		return 1;
	}
	printf("%u of %u layout vectors reproduced\n", rows - bad, rows);
	return bad ? 1 : 0;
}
