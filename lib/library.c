// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * library.c - the library-wide functions: version, error text, freeing
 * name lists.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define UDMEM_STR(x)	#x
#define UDMEM_XSTR(x)	UDMEM_STR(x)

UDMEM_API const char *udmem_api_version(void)
{
	return UDMEM_XSTR(UDMEM_VERSION_MAJOR) "."
	       UDMEM_XSTR(UDMEM_VERSION_MINOR) "."
	       UDMEM_XSTR(UDMEM_VERSION_PATCH);
}

UDMEM_API const char *udmem_strerror(int err)
{
	static const char unknown[] = "Unknown error";
	const char *s;

	if (err < 0)
		err = -err;
	if (err == 0)
		return "Success";
	/* strerrordesc_np() is thread-safe and returns a static string. */
	s = strerrordesc_np(err);
	return s ? s : unknown;
}

UDMEM_API void udmem_list_free(char **names)
{
	char **p;

	if (!names)
		return;
	for (p = names; *p; p++)
		free(*p);
	free(names);
}
