/*
 * draw.h - lrugen-top's panels: header, list (table + timeline), details,
 * status bar, help (keys_help) and the confirmation dialog (plan_lines).
 * Drawing reads struct top and changes only the windows and geometry.
 */
#ifndef TOP_DRAW_H
#define TOP_DRAW_H

struct top;

/* Colour pairs from the scheme table, or monochrome attributes without colours. */
void draw_init_colors(struct top *t);
/* (Re)create the windows for the terminal's size. */
void draw_layout(struct top *t);
/* Draw the panels in what (TOP_DRAW_* bits) into the back buffer (no doupdate). */
void draw_panels(struct top *t, unsigned what);
/* Delete the windows. */
void draw_free(struct top *t);

#endif
