/* html_svg.c - SVG primitives for the HTML report (html_svg.h). */
#include "io/html_svg.h"

#include <math.h>
#include <string.h>

#define FONT "font-family=\"sans-serif\" font-size=\"11\""

void html_text(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f); break;
        }
    }
}

void svg_open(FILE *f, const char *id, int width, int height, const char *label)
{
    fprintf(f, "<svg class=\"chart\" id=\"%s\" xmlns=\"http://www.w3.org/2000/svg\" "
               "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\"><title>",
            id, width, height, width, height);
    html_text(f, label);
    fprintf(f, "</title>\n");
}

void svg_close(FILE *f)
{
    fputs("</svg>\n", f);
}

static double tx(const struct svg_plot *p, double v)
{
    if (p->xlog) {
        double lo = log10(p->xlo), hi = log10(p->xhi);
        v = v < p->xlo ? p->xlo : v;
        return hi > lo ? (log10(v) - lo) / (hi - lo) : 0;
    }
    return p->xhi > p->xlo ? (v - p->xlo) / (p->xhi - p->xlo) : 0;
}

double svg_x(const struct svg_plot *p, double v)
{
    double t = tx(p, v);
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return p->x0 + t * p->w;
}

double svg_y(const struct svg_plot *p, double v)
{
    double t = p->yhi > p->ylo ? (v - p->ylo) / (p->yhi - p->ylo) : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return p->y0 + p->h - t * p->h;
}

/* A "nice" step (1, 2 or 5 x 10^k) giving about `target` ticks. */
static double nice_step(double range, int target)
{
    if (range <= 0)
        return 1;
    double raw = range / target, mag = pow(10, floor(log10(raw))), r = raw / mag;
    return (r < 1.5 ? 1 : r < 3.5 ? 2 : r < 7.5 ? 5 : 10) * mag;
}

/* nice_step(range, target) spaces ticks more than range / (1.75 x target)
 * apart, so an axis (target 8 at most) has at most 16 of them. */
#define MAX_TICKS 32

/* The ticks from the first multiple of a nice step at or above lo up to hi,
 * into v[]; returns how many.  An integer bounds the loop: adding a step
 * smaller than the spacing of doubles near lo would never reach hi. */
static int tick_values(double lo, double hi, int target, double v[MAX_TICKS])
{
    double step = nice_step(hi - lo, target), t = ceil(lo / step) * step;
    int n = 0;
    for (; n < MAX_TICKS && t <= hi + step * 1e-9; n++) {
        v[n] = t;
        t += step;
    }
    return n;
}

static void tick_x(const struct svg_plot *p, double v, svg_tick_fn fmt)
{
    char buf[32];
    double x = svg_x(p, v);
    fmt(buf, sizeof buf, v);
    fprintf(p->f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                  "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" " FONT ">%s</text>\n",
            x, p->y0, x, p->y0 + p->h, x, p->y0 + p->h + 14, buf);
}

static void x_ticks(const struct svg_plot *p, svg_tick_fn fmt)
{
    if (p->xlog) {
        static const double marks[] = { 1, 10, 60, 600, 3600, 36000, 86400, 864000, 8640000 };
        for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++)
            if (marks[i] >= p->xlo && marks[i] <= p->xhi)
                tick_x(p, marks[i], fmt);
        return;
    }
    double v[MAX_TICKS];
    int n = tick_values(p->xlo, p->xhi, 8, v);
    for (int i = 0; i < n; i++)
        tick_x(p, v[i], fmt);
}

void svg_axes(const struct svg_plot *p, const char *xlabel, const char *ylabel, svg_tick_fn xt,
              svg_tick_fn yt)
{
    FILE *f = p->f;
    char buf[32];
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#fff\" "
               "stroke=\"#888\"/>\n", p->x0, p->y0, p->w, p->h);
    double v[MAX_TICKS];
    int n = yt ? tick_values(p->ylo, p->yhi, 5, v) : 0;
    for (int i = 0; i < n; i++) {
        double y = svg_y(p, v[i]);
        yt(buf, sizeof buf, v[i]);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                   "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" " FONT ">%s</text>\n",
                p->x0, y, p->x0 + p->w, y, p->x0 - 4, y + 4, buf);
    }
    x_ticks(p, xt);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" " FONT ">", p->x0 + p->w / 2,
            p->y0 + p->h + 30);
    html_text(f, xlabel);
    fprintf(f, "</text>\n<text transform=\"translate(%.1f,%.1f) rotate(-90)\" "
               "text-anchor=\"middle\" " FONT ">", p->x0 - 42, p->y0 + p->h / 2);
    html_text(f, ylabel);
    fputs("</text>\n", f);
}

void svg_line(const struct svg_plot *p, const double *xs, const double *ys, int n,
              const char *color, double width, int step, const char *title)
{
    if (n <= 0)
        return;
    fprintf(p->f, "<path class=\"series\" fill=\"none\" stroke=\"%s\" stroke-width=\"%.1f\"%s d=\"",
            color, width < 0 ? -width : width, width < 0 ? " stroke-dasharray=\"5 3\"" : "");
    for (int i = 0; i < n; i++) {
        double x = svg_x(p, xs[i]), y = svg_y(p, ys[i]);
        if (i == 0)
            fprintf(p->f, "M%.1f %.1f", x, y);
        else if (step)
            fprintf(p->f, "H%.1fV%.1f", x, y);
        else
            fprintf(p->f, "L%.1f %.1f", x, y);
    }
    fputs("\"><title>", p->f);
    html_text(p->f, title);
    fputs("</title></path>\n", p->f);
}

void svg_legend(FILE *f, double x, double y, const char *const *labels,
                const char *const *colors, int n)
{
    for (int i = 0; i < n; i++) {
        fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\" fill=\"%s\" "
                   "stroke=\"#555\" stroke-width=\"0.5\"/><text x=\"%.1f\" y=\"%.1f\" " FONT ">",
                x, y - 9, colors[i], x + 14, y);
        html_text(f, labels[i]);
        fputs("</text>\n", f);
        x += 24 + 6.5 * (double)strlen(labels[i]);
    }
}

void svg_tick_num(char *buf, size_t n, double v)
{
    if (fabs(v) >= 100 || v == floor(v))
        snprintf(buf, n, "%.0f", v);
    else
        snprintf(buf, n, "%.1f", v);
}

void svg_tick_pct(char *buf, size_t n, double v)
{
    snprintf(buf, n, "%.0f%%", 100 * v);
}

void svg_tick_dur(char *buf, size_t n, double v)
{
    if (v < 60)
        snprintf(buf, n, "%.0fs", v);
    else if (v < 3600)
        snprintf(buf, n, "%.0fm", v / 60);
    else if (v < 86400)
        snprintf(buf, n, "%.0fh", v / 3600);
    else
        snprintf(buf, n, "%.0fd", v / 86400);
}

void svg_tick_hours(char *buf, size_t n, double v)
{
    svg_tick_num(buf, n, v);
}
