/* png.c - an SVG chart rendered to PNG by librsvg and cairo, loaded when asked for (png.h). */
#include "png.h"

#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

/*
 * The few types and functions of librsvg 2.52+, GLib and cairo used here,
 * as their headers declare them (the -dev packages are not needed to
 * build lrugen).
 */
typedef struct {
	uint32_t domain;
	int code;
	char *message;
} png_gerror;
typedef struct {
	double x, y, width, height;
} png_rect;
enum { PNG_CAIRO_FORMAT_ARGB32 = 0, PNG_CAIRO_STATUS_SUCCESS = 0 };
typedef int (*png_write_fn)(void *closure, const unsigned char *data, unsigned int length);

struct png_lib {
	void *(*new_from_data)(const uint8_t *data, size_t len, png_gerror **error);
	int (*intrinsic_px)(void *handle, double *w, double *h);
	int (*render)(void *handle, void *cr, const png_rect *viewport, png_gerror **error);
	void (*unref)(void *object);
	void (*error_free)(png_gerror *error);
	void *(*surface_create)(int format, int w, int h);
	void *(*create)(void *surface);
	void (*set_source_rgb)(void *cr, double r, double g, double b);
	void (*paint)(void *cr);
	int (*status)(void *cr);
	int (*write_png)(void *surface, png_write_fn write, void *closure);
	void (*destroy)(void *cr);
	void (*surface_destroy)(void *surface);
};

static const struct {
	const char *name;
	size_t off;
} png_syms[] = {
	{ "rsvg_handle_new_from_data", offsetof(struct png_lib, new_from_data) },
	{ "rsvg_handle_get_intrinsic_size_in_pixels", offsetof(struct png_lib, intrinsic_px) },
	{ "rsvg_handle_render_document", offsetof(struct png_lib, render) },
	{ "g_object_unref", offsetof(struct png_lib, unref) },
	{ "g_error_free", offsetof(struct png_lib, error_free) },
	{ "cairo_image_surface_create", offsetof(struct png_lib, surface_create) },
	{ "cairo_create", offsetof(struct png_lib, create) },
	{ "cairo_set_source_rgb", offsetof(struct png_lib, set_source_rgb) },
	{ "cairo_paint", offsetof(struct png_lib, paint) },
	{ "cairo_status", offsetof(struct png_lib, status) },
	{ "cairo_surface_write_to_png_stream", offsetof(struct png_lib, write_png) },
	{ "cairo_destroy", offsetof(struct png_lib, destroy) },
	{ "cairo_surface_destroy", offsetof(struct png_lib, surface_destroy) },
};

/* Load librsvg (once for the process) and find every function, cairo's through its dependencies. */
static enum lru_err png_load(struct png_lib *lib, struct lru_error *err)
{
	void *h = dlopen(PNG_RSVG_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (!h)
		return lru_fail(err, LRU_ENOENT, "PNG needs librsvg (%s: apt-get install librsvg2-2), "
				"or write the chart as FILE.svg", PNG_RSVG_SONAME);
	for (size_t i = 0; i < sizeof(png_syms) / sizeof(png_syms[0]); i++) {
		void *f = dlsym(h, png_syms[i].name);

		if (!f)
			return lru_fail(err, LRU_ENOENT, "PNG needs librsvg 2.52 or later: %s has no %s",
					PNG_RSVG_SONAME, png_syms[i].name);
		memcpy((char *)lib + png_syms[i].off, &f, sizeof(f));
	}
	return LRU_OK;	/* the library stays loaded: a process draws few charts */
}

static int png_append(void *closure, const unsigned char *data, unsigned int length)
{
	return lru_buf_append(closure, data, length, NULL) ? 11 /* CAIRO_STATUS_WRITE_ERROR */ :
								 PNG_CAIRO_STATUS_SUCCESS;
}

enum lru_err png_from_svg(const void *svg, size_t len, struct lru_buf *out, struct lru_error *err)
{
	struct png_lib lib;
	png_gerror *gerr = NULL;
	double w = 0, h = 0;
	void *handle, *surface = NULL, *cr = NULL;
	enum lru_err rc;

	if ((rc = png_load(&lib, err)))
		return rc;
	handle = lib.new_from_data(svg, len, &gerr);
	if (!handle || !lib.intrinsic_px(handle, &w, &h) || w < 1 || h < 1 || w > 16384 || h > 16384) {
		rc = lru_fail(err, LRU_EINVAL, "librsvg cannot draw the chart: %s",
			      gerr && gerr->message ? gerr->message : "no size in pixels");
		goto out;
	}
	surface = lib.surface_create(PNG_CAIRO_FORMAT_ARGB32, (int)w, (int)h);
	cr = lib.create(surface);
	lib.set_source_rgb(cr, 1, 1, 1);
	lib.paint(cr);
	if (!lib.render(handle, cr, &(png_rect){ 0, 0, w, h }, &gerr)) {
		rc = lru_fail(err, LRU_EINVAL, "librsvg cannot draw the chart: %s",
			      gerr && gerr->message ? gerr->message : "unknown error");
		goto out;
	}
	if (lib.status(cr) != PNG_CAIRO_STATUS_SUCCESS ||
	    lib.write_png(surface, png_append, out) != PNG_CAIRO_STATUS_SUCCESS)
		rc = lru_fail(err, LRU_EIO, "cairo cannot write the PNG (out of memory?)");
out:
	if (cr)
		lib.destroy(cr);
	if (surface)
		lib.surface_destroy(surface);
	if (handle)
		lib.unref(handle);
	if (gerr)
		lib.error_free(gerr);
	return rc;
}
