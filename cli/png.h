/*
 * png.h - an SVG chart rendered to PNG by librsvg and cairo, Debian's own
 * (librsvg2-2, which brings libcairo2), for `lrugen fleet plot --out X.png`.
 *
 * The libraries are loaded when a PNG is asked for (dlopen of
 * librsvg-2.so.2; cairo's functions through it), not linked: lrugen stays
 * one small binary with the few libraries every command needs (the QEMU
 * guests and the Debian package carry it), and a machine without librsvg
 * is told what to install. The chart is drawn at its own size (the SVG's
 * width and height) on white.
 */
#ifndef CLI_PNG_H
#define CLI_PNG_H

#include <stddef.h>

#include "lru_buf.h"
#include "lru_err.h"

/* the library loaded, by its soname */
#define PNG_RSVG_SONAME "librsvg-2.so.2"

/*
 * Append the PNG of svg (len bytes) to out. LRU_ENOENT: librsvg is not
 * installed; LRU_EINVAL: librsvg refused the SVG; LRU_EIO: cairo failed;
 * LRU_ENOMEM. The message says which, and what to do.
 */
enum lru_err png_from_svg(const void *svg, size_t len, struct lru_buf *out, struct lru_error *err);

#endif
