// SPDX-License-Identifier: (GPL-2.0 OR MIT)
/*
 * mcfab-create: create a soft-fabric file exactly as docs/soft-fabric.md
 * says (until `mcctl node create` exists; the two are cross-checked).
 *
 *   mcfab-create PATH [-s FILE_SIZE] [-p PAGE_SIZE] [-n MAX_NODES] [-g GID]
 *   mcfab-create --check PATH     validate an existing file, print geometry
 */
#include <stdlib.h>
#include <sys/random.h>
#include <time.h>

#include "mcfab.h"

static int usage(void)
{
	fprintf(stderr, "usage: mcfab-create PATH [-s SIZE] [-p PAGE_SIZE] [-n MAX_NODES] [-g GID]\n"
			"       mcfab-create --check PATH\n");
	return 2;
}

static int check(const char *path)
{
	struct mcfab_geom g;
	struct stat st;
	char err[128];
	void *hdr;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st)) {
		perror(path);
		return 1;
	}
	if (st.st_size < MC_SF_HEADER_SIZE) {
		fprintf(stderr, "%s: smaller than one page\n", path);
		return 1;
	}
	hdr = mmap(NULL, MC_SF_HEADER_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	if (hdr == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	if (mcfab_validate(hdr, st.st_size, &g, err, sizeof(err))) {
		fprintf(stderr, "%s: invalid soft fabric: %s\n", path, err);
		return 1;
	}
	printf("file_size=%llu page_size=%u page_count=%u max_nodes=%u node_block_size=%llu data_offset=%llu\n",
	       (unsigned long long)g.file_size, g.page_size, g.page_count, g.max_nodes,
	       (unsigned long long)g.node_block_size, (unsigned long long)g.data_offset);
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t size = MC_SF_DEFAULT_FILE_SIZE, fabric_id = 0;
	uint32_t ps = MC_SF_DEFAULT_PAGE_SIZE, nodes = MC_SF_DEFAULT_MAX_NODES, n;
	long gid = -1;
	struct mcfab_geom g;
	struct timespec ts;
	const char *path;
	char *fab, *nb;
	int fd, i;

	if (argc == 3 && !strcmp(argv[1], "--check"))
		return check(argv[2]);
	if (argc < 2 || argv[1][0] == '-')
		return usage();
	path = argv[1];
	for (i = 2; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "-s"))
			size = strtoull(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "-p"))
			ps = strtoul(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "-n"))
			nodes = strtoul(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "-g"))
			gid = strtol(argv[i + 1], NULL, 0);
		else
			return usage();
	}
	if (i != argc)
		return usage();
	if (mcfab_geometry(&g, size, ps, nodes)) {
		fprintf(stderr, "mcfab-create: bad geometry: %s (size a power of two of 1 MiB..16 GiB, page 4096/8192, nodes 2..32)\n",
			mc_sf_geometry_problem(size, ps, nodes));
		return 2;
	}

	fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0660);
	if (fd < 0) {
		perror(path);	/* an existing file is never re-created */
		return 1;
	}
	if (fchmod(fd, 0660) || (gid >= 0 && fchown(fd, -1, gid)) || ftruncate(fd, size)) {
		perror(path);
		unlink(path);
		return 1;
	}
	fab = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (fab == MAP_FAILED) {
		perror("mmap");
		unlink(path);
		return 1;
	}
	while (!fabric_id)
		if (getrandom(&fabric_id, sizeof(fabric_id), 0) != sizeof(fabric_id))
			return 1;
	clock_gettime(CLOCK_REALTIME, &ts);

	MCFAB_U64(fab, MC_SF_HDR_MAGIC) = MC_SF_MAGIC;
	MCFAB_U32(fab, MC_SF_HDR_VERSION) = MC_SF_VERSION;
	MCFAB_U32(fab, MC_SF_HDR_HEADER_SIZE) = MC_SF_HEADER_SIZE;
	MCFAB_U32(fab, MC_SF_HDR_PAGE_SIZE) = g.page_size;
	MCFAB_U32(fab, MC_SF_HDR_PAGE_COUNT) = g.page_count;
	MCFAB_U32(fab, MC_SF_HDR_MAX_NODES) = g.max_nodes;
	MCFAB_U32(fab, MC_SF_HDR_SYSTEM_PAGES) = MC_SYS_PAGES;
	MCFAB_U64(fab, MC_SF_HDR_FILE_SIZE) = g.file_size;
	MCFAB_U64(fab, MC_SF_HDR_NODE_AREA_OFFSET) = MC_SF_HEADER_SIZE;
	MCFAB_U64(fab, MC_SF_HDR_NODE_BLOCK_SIZE) = g.node_block_size;
	MCFAB_U64(fab, MC_SF_HDR_DATA_OFFSET) = g.data_offset;
	MCFAB_U64(fab, MC_SF_HDR_FABRIC_ID) = fabric_id;
	MCFAB_U32(fab, MC_SF_HDR_STATE) = MC_SF_STATE_INITIALIZING;
	MCFAB_U32(fab, MC_SF_HDR_FLAGS) = 0;
	MCFAB_U64(fab, MC_SF_HDR_CREATED_NS) = (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;

	/* every node block's read-only registers (reset values of the register map) */
	for (n = 0; n < g.max_nodes; n++) {
		nb = mcfab_node(fab, &g, n);
		MCFAB_U32(nb, MC_REG_ID) = MC_REG_ID_RESET;
		MCFAB_U32(nb, MC_REG_VERSION) = MC_REG_VERSION_RESET;
		MCFAB_U32(nb, MC_REG_PAGE_COUNT) = g.page_count;
		MCFAB_U32(nb, MC_REG_PAGE_SIZE) = g.page_size;
		MCFAB_U32(nb, MC_REG_MAX_NODES) = g.max_nodes;
		MCFAB_U32(nb, MC_REG_CAPS) = MC_SF_INIT_CAPS;
		MCFAB_U32(nb, MC_REG_CTRL) = MC_SF_INIT_CTRL;
		MCFAB_U32(nb, MC_REG_LINK_STATUS) = MC_SF_INIT_LINK_STATUS;
	}
	/* STATE = ready last, with release semantics */
	__atomic_store_n((uint32_t *)(fab + MC_SF_HDR_STATE), MC_SF_STATE_READY, __ATOMIC_RELEASE);
	if (msync(fab, size, MS_SYNC)) {
		perror("msync");
		return 1;
	}
	printf("%s: %u pages of %u bytes, %u nodes, data at %llu\n", path, g.page_count,
	       g.page_size, g.max_nodes, (unsigned long long)g.data_offset);
	return 0;
}
