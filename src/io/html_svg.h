/* html_svg.h - the few SVG drawing primitives the HTML report needs: a
 * plot area with linear or log axes, ticks and labels, polylines, legends,
 * and HTML text escaping.  Everything is written straight to a FILE; no
 * JavaScript, no network.
 */
#ifndef GS_IO_HTML_SVG_H
#define GS_IO_HTML_SVG_H

#include <stdio.h>

/* Formats a tick value into buf (e.g. "10%", "2h"). */
typedef void (*svg_tick_fn)(char *buf, size_t n, double v);

struct svg_plot {
    FILE *f;
    double x0, y0, w, h;        /* plot area in pixels (top-left, size) */
    double xlo, xhi, ylo, yhi;  /* data range */
    int xlog;                   /* x axis is log10 */
};

/* Open an <svg> of `width` x `height` pixels with element id `id`, class
 * "chart" and an accessible `label` (its <title>). */
void svg_open(FILE *f, const char *id, int width, int height, const char *label);
void svg_close(FILE *f);

/* Pixel position of a data value (clamped to the plot area). */
double svg_x(const struct svg_plot *p, double v);
double svg_y(const struct svg_plot *p, double v);

/* Frame, grid, ticks and axis labels.  `xt`/`yt` format tick values; a
 * NULL `yt` draws no y ticks (the caller labels the rows). */
void svg_axes(const struct svg_plot *p, const char *xlabel, const char *ylabel, svg_tick_fn xt,
              svg_tick_fn yt);

/* A line through n points; `step` draws it as a step function; a negative
 * `width` draws it dashed. */
void svg_line(const struct svg_plot *p, const double *xs, const double *ys, int n,
              const char *color, double width, int step, const char *title);

/* Legend: coloured squares and labels in a row starting at (x, y). */
void svg_legend(FILE *f, double x, double y, const char *const *labels,
                const char *const *colors, int n);

/* Write `s` with &, <, >, " escaped. */
void html_text(FILE *f, const char *s);

/* Tick formatters. */
void svg_tick_num(char *buf, size_t n, double v);
void svg_tick_pct(char *buf, size_t n, double v);   /* v in [0,1] */
void svg_tick_dur(char *buf, size_t n, double v);   /* v in seconds */
void svg_tick_hours(char *buf, size_t n, double v); /* v in hours */

#endif
