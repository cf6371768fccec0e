// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * uiomem-params.c - the module parameters that place a region are hardware
 * parameters, which a locked-down kernel refuses.
 *
 * Why the module file and not the running kernel: lockdown also requires
 * signed modules, and ours are unsigned, so a locked-down guest could not
 * load uiomem.ko at all and the refusal itself cannot be observed.  What
 * the kernel checks is the flag KERNEL_PARAM_FL_HWPARAM of each struct
 * kernel_param in the module's __param section; the flag is not visible in
 * sysfs.  So this reads the module ($UIOMEM_KO, default
 * /udmem/modules/uiomem.ko, built for this very kernel): each parameter is
 * the local symbol __param_<name>, whose value is its offset in __param.
 * The layout check (perm 0444 in every entry) makes sure the offsets are
 * read right before the flags are trusted, and info_enable, an ordinary
 * parameter, must not carry the flag.
 */
#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "uiomem-test.h"

#if __SIZEOF_POINTER__ == 8
typedef Elf64_Ehdr ehdr_t;
typedef Elf64_Shdr shdr_t;
typedef Elf64_Sym sym_t;
#define UT_ELFCLASS	ELFCLASS64
#else
typedef Elf32_Ehdr ehdr_t;
typedef Elf32_Shdr shdr_t;
typedef Elf32_Sym sym_t;
#define UT_ELFCLASS	ELFCLASS32
#endif

/* include/linux/moduleparam.h, unchanged since 4.13 */
#define KERNEL_PARAM_FL_HWPARAM	(1 << 1)
/* struct kernel_param: name, mod, ops (pointers), then u16 perm, s8 level, u8 flags */
#define KP_PERM_OFF	(3 * sizeof(void *))
#define KP_FLAGS_OFF	(3 * sizeof(void *) + 3)

struct ko {
	uint8_t *data;
	size_t len;
	const shdr_t *sh;
	unsigned int nsh;
	const shdr_t *param;	/* the __param section */
	const sym_t *syms;
	size_t nsyms;
	const char *strtab;
	unsigned int param_idx;
};

static int ko_load(struct ko *ko, const char *path)
{
	const ehdr_t *eh;
	const char *shstr;
	struct stat st;
	unsigned int i;
	int fd;

	memset(ko, 0, sizeof(*ko));
	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st))
		return -1;
	ko->len = st.st_size;
	ko->data = malloc(ko->len);
	if (!ko->data || read(fd, ko->data, ko->len) != (ssize_t)ko->len) {
		close(fd);
		return -1;
	}
	close(fd);
	eh = (const ehdr_t *)ko->data;
	if (ko->len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != UT_ELFCLASS || eh->e_shoff >= ko->len ||
	    eh->e_shstrndx >= eh->e_shnum)
		return -1;
	ko->sh = (const shdr_t *)(ko->data + eh->e_shoff);
	ko->nsh = eh->e_shnum;
	shstr = (const char *)ko->data + ko->sh[eh->e_shstrndx].sh_offset;
	for (i = 0; i < ko->nsh; i++) {
		const shdr_t *s = &ko->sh[i];

		if (!strcmp(shstr + s->sh_name, "__param")) {
			ko->param = s;
			ko->param_idx = i;
		}
		if (s->sh_type == SHT_SYMTAB && s->sh_link < ko->nsh) {
			ko->syms = (const sym_t *)(ko->data + s->sh_offset);
			ko->nsyms = s->sh_size / sizeof(sym_t);
			ko->strtab = (const char *)ko->data + ko->sh[s->sh_link].sh_offset;
		}
	}
	return ko->param && ko->syms ? 0 : -1;
}

/* The struct kernel_param of parameter @name, or NULL. */
static const uint8_t *ko_param(const struct ko *ko, const char *name)
{
	char want[80];
	size_t i;

	snprintf(want, sizeof(want), "__param_%s", name);
	for (i = 0; i < ko->nsyms; i++) {
		const sym_t *s = &ko->syms[i];

		if (s->st_shndx != ko->param_idx || strcmp(ko->strtab + s->st_name, want))
			continue;
		if (s->st_value + KP_FLAGS_OFF >= ko->param->sh_size)
			return NULL;
		return ko->data + ko->param->sh_offset + s->st_value;
	}
	return NULL;
}

static void open_module(struct ko *ko)
{
	const char *path = ut_env("UIOMEM_KO", "/udmem/modules/uiomem.ko");

	if (access(path, R_OK))
		SKIP("%s: %s", path, strerror(errno));
	ASSERT_OK(ko_load(ko, path));
}

static uint16_t param_perm(const uint8_t *kp)
{
	uint16_t perm;

	memcpy(&perm, kp + KP_PERM_OFF, sizeof(perm));
	return perm;
}

TEST(region_params_are_hwparams)
{
	static const char *const kinds[] = { "addr", "size" };
	struct ko ko;
	char name[32];
	int n, k;

	open_module(&ko);
	for (n = 0; n < 8; n++) {
		for (k = 0; k < 2; k++) {
			const uint8_t *kp;

			snprintf(name, sizeof(name), "uiomem%d_%s", n, kinds[k]);
			kp = ko_param(&ko, name);
			UT_CHECK(kp, 0, "no parameter %s in the module", name);
			if (!kp)
				continue;
			UT_CHECK(param_perm(kp) == 0444, 0, "%s: perm %o: layout misread",
				 name, param_perm(kp));
			UT_CHECK(kp[KP_FLAGS_OFF] & KERNEL_PARAM_FL_HWPARAM, 0,
				 "%s: flags 0x%x lack KERNEL_PARAM_FL_HWPARAM: lockdown lets it through",
				 name, kp[KP_FLAGS_OFF]);
		}
	}
}

TEST(info_enable_is_not_hwparam)
{
	const uint8_t *kp;
	struct ko ko;

	open_module(&ko);
	kp = ko_param(&ko, "info_enable");
	ASSERT_TRUE(kp);
	EXPECT_EQ(param_perm(kp), 0444);
	EXPECT_EQ(kp[KP_FLAGS_OFF] & KERNEL_PARAM_FL_HWPARAM, 0);
}

TEST_HARNESS_MAIN
