package dev.lockstep.bench.report;

import dev.lockstep.bench.Workloads.Contention;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Draws commit latency percentiles (p50 solid, p99 dashed) against writer count, one colour per
 * system, as a standalone SVG with a logarithmic latency axis.
 */
public final class LatencyPlot {

  private static final int WIDTH = 760;
  private static final int HEIGHT = 420;
  private static final int LEFT = 70;
  private static final int RIGHT = 170;
  private static final int TOP = 40;
  private static final int BOTTOM = 50;
  private static final String[] COLOURS = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd"};

  private LatencyPlot() {}

  public static String svg(String title, List<Contention> results) {
    TreeSet<Integer> writers = new TreeSet<>();
    Map<String, Map<Integer, Contention>> bySystem = new TreeMap<>();
    double min = Double.MAX_VALUE;
    double max = 0;
    for (Contention c : results) {
      writers.add(c.committers());
      bySystem.computeIfAbsent(c.system(), k -> new TreeMap<>()).put(c.committers(), c);
      min = Math.min(min, Math.max(0.01, c.p50Millis()));
      max = Math.max(max, c.p99Millis());
    }
    double logMin = Math.floor(Math.log10(Math.max(0.01, min)));
    double logMax = Math.ceil(Math.log10(Math.max(max, 0.1)));
    if (logMax <= logMin) {
      logMax = logMin + 1;
    }
    List<Integer> xs = new ArrayList<>(writers);
    StringBuilder svg = new StringBuilder();
    svg.append(
        String.format(
            Locale.ROOT,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "font-family=\"sans-serif\" font-size=\"12\">%n",
            WIDTH,
            HEIGHT));
    svg.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
    svg.append(
        String.format(
            Locale.ROOT,
            "<text x=\"%d\" y=\"22\" font-size=\"15\" font-weight=\"bold\">%s</text>%n",
            LEFT,
            escape(title)));
    int plotW = WIDTH - LEFT - RIGHT;
    int plotH = HEIGHT - TOP - BOTTOM;
    svg.append(
        String.format(
            Locale.ROOT,
            "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#444\"/>%n",
            LEFT,
            TOP,
            plotW,
            plotH));
    for (double e = logMin; e <= logMax; e++) {
      double y = y(Math.pow(10, e), logMin, logMax, plotH);
      svg.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>%n",
              LEFT,
              y,
              LEFT + plotW,
              y));
      svg.append(
          String.format(
              Locale.ROOT,
              "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s ms</text>%n",
              LEFT - 6,
              y + 4,
              trim(Math.pow(10, e))));
    }
    for (int i = 0; i < xs.size(); i++) {
      double x = LEFT + x(i, xs.size(), plotW);
      svg.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#444\"/>%n",
              x,
              TOP + plotH,
              x,
              TOP + plotH + 5));
      svg.append(
          String.format(
              Locale.ROOT,
              "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d</text>%n",
              x,
              TOP + plotH + 18,
              xs.get(i)));
    }
    svg.append(
        String.format(
            Locale.ROOT,
            "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">concurrent committers</text>%n",
            LEFT + plotW / 2,
            HEIGHT - 10));
    int colour = 0;
    int legendY = TOP + 10;
    for (Map.Entry<String, Map<Integer, Contention>> system : bySystem.entrySet()) {
      String c = COLOURS[colour++ % COLOURS.length];
      for (int p = 0; p < 2; p++) {
        StringBuilder points = new StringBuilder();
        StringBuilder markers = new StringBuilder();
        for (int i = 0; i < xs.size(); i++) {
          Contention r = system.getValue().get(xs.get(i));
          if (r == null) {
            continue;
          }
          double v = p == 0 ? r.p50Millis() : r.p99Millis();
          double px = LEFT + x(i, xs.size(), plotW);
          double py = y(Math.max(v, Math.pow(10, logMin)), logMin, logMax, plotH);
          points.append(String.format(Locale.ROOT, "%.1f,%.1f ", px, py));
          markers.append(
              String.format(
                  Locale.ROOT,
                  "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>%s %s K=%d: %.1f ms"
                      + "</title></circle>%n",
                  px,
                  py,
                  c,
                  escape(system.getKey()),
                  p == 0 ? "p50" : "p99",
                  xs.get(i),
                  v));
        }
        svg.append(
            String.format(
                Locale.ROOT,
                "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s/>%n",
                points.toString().trim(),
                c,
                p == 0 ? "" : " stroke-dasharray=\"6,4\""));
        svg.append(markers);
        svg.append(
            String.format(
                Locale.ROOT,
                "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\"%s/>%n",
                WIDTH - RIGHT + 12,
                legendY,
                WIDTH - RIGHT + 40,
                legendY,
                c,
                p == 0 ? "" : " stroke-dasharray=\"6,4\""));
        svg.append(
            String.format(
                Locale.ROOT,
                "<text x=\"%d\" y=\"%d\">%s %s</text>%n",
                WIDTH - RIGHT + 46,
                legendY + 4,
                escape(system.getKey()),
                p == 0 ? "p50" : "p99"));
        legendY += 20;
      }
    }
    svg.append("</svg>\n");
    return svg.toString();
  }

  private static double x(int index, int count, int plotW) {
    return count == 1 ? plotW / 2.0 : 30 + index * (plotW - 60.0) / (count - 1);
  }

  private static double y(double value, double logMin, double logMax, int plotH) {
    double f = (Math.log10(value) - logMin) / (logMax - logMin);
    return TOP + plotH - f * plotH;
  }

  private static String trim(double v) {
    return v >= 1 ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.2f", v);
  }

  private static String escape(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
