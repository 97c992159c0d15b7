package dev.lockstep.bench.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * A standalone SVG line chart in the style of {@link LatencyPlot}: one line per series over
 * categorical x values (sorted; evenly spaced, so 100, 1,000 and 10,000 sit apart as on a log
 * axis), a linear or logarithmic y axis, a legend on the right.
 */
public final class ScalePlot {

  private static final int WIDTH = 760;
  private static final int HEIGHT = 420;
  private static final int LEFT = 70;
  private static final int RIGHT = 230;
  private static final int TOP = 40;
  private static final int BOTTOM = 50;
  private static final String[] COLOURS = {
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf", "#7f7f7f"
  };

  private ScalePlot() {}

  /**
   * @param series label to (x to y); a series' missing x values are skipped
   */
  public static String svg(
      String title,
      String xLabel,
      String yLabel,
      Map<String, Map<Long, Double>> series,
      boolean log) {
    TreeSet<Long> xs = new TreeSet<>();
    double min = Double.MAX_VALUE;
    double max = 0;
    for (Map<Long, Double> s : series.values()) {
      xs.addAll(s.keySet());
      for (double v : s.values()) {
        if (v > 0) {
          min = Math.min(min, v);
        }
        max = Math.max(max, v);
      }
    }
    if (xs.isEmpty()) {
      min = 1;
      max = 10;
    }
    double lo = log ? Math.floor(Math.log10(Math.max(min, 0.01))) : 0;
    double hi = log ? Math.ceil(Math.log10(Math.max(max, 0.1))) : niceCeiling(max);
    if (hi <= lo) {
      hi = lo + 1;
    }
    int plotW = WIDTH - LEFT - RIGHT;
    int plotH = HEIGHT - TOP - BOTTOM;
    List<Long> xList = new ArrayList<>(xs);
    StringBuilder svg = new StringBuilder();
    svg.append(
        String.format(
            Locale.ROOT,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d"
                + " %d\" font-family=\"sans-serif\" font-size=\"12\">\n",
            WIDTH,
            HEIGHT,
            WIDTH,
            HEIGHT));
    svg.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
    svg.append(
        String.format(
            Locale.ROOT,
            "<text x=\"%d\" y=\"22\" font-size=\"14\" font-weight=\"bold\">%s</text>\n",
            LEFT,
            escape(title)));
    // y grid
    int ticks = log ? (int) (hi - lo) : 5;
    for (int i = 0; i <= ticks; i++) {
      double value = log ? Math.pow(10, lo + i) : hi * i / ticks;
      double y = TOP + plotH - (double) plotH * i / ticks;
      svg.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
              LEFT,
              y,
              LEFT + plotW,
              y));
      svg.append(
          String.format(
              Locale.ROOT,
              "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
              LEFT - 6,
              y + 4,
              trim(value)));
    }
    for (int i = 0; i < xList.size(); i++) {
      double x = x(i, xList.size(), plotW);
      svg.append(
          String.format(
              Locale.ROOT,
              "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
              x,
              TOP + plotH + 18,
              String.format(Locale.ROOT, "%,d", xList.get(i))));
    }
    svg.append(
        String.format(
            Locale.ROOT,
            "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
            LEFT + plotW / 2,
            HEIGHT - 10,
            escape(xLabel)));
    svg.append(
        String.format(
            Locale.ROOT,
            "<text x=\"16\" y=\"%d\" transform=\"rotate(-90 16 %d)\" text-anchor=\"middle\">%s</text>\n",
            TOP + plotH / 2,
            TOP + plotH / 2,
            escape(yLabel)));
    svg.append(
        String.format(
            Locale.ROOT,
            "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#333\"/>\n",
            LEFT,
            TOP,
            plotW,
            plotH));
    int colour = 0;
    int legendY = TOP + 10;
    for (Map.Entry<String, Map<Long, Double>> s : series.entrySet()) {
      String c = COLOURS[colour++ % COLOURS.length];
      StringBuilder points = new StringBuilder();
      for (int i = 0; i < xList.size(); i++) {
        Double v = s.getValue().get(xList.get(i));
        if (v == null || (log && v <= 0)) {
          continue;
        }
        double y = y(v, lo, hi, plotH, log);
        double x = x(i, xList.size(), plotW);
        points.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
        svg.append(
            String.format(
                Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n", x, y, c));
      }
      svg.append(
          String.format(
              Locale.ROOT,
              "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>\n",
              points.toString().trim(),
              c));
      svg.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\"/>\n",
              LEFT + plotW + 12,
              legendY,
              LEFT + plotW + 32,
              legendY,
              c));
      svg.append(
          String.format(
              Locale.ROOT,
              "<text x=\"%d\" y=\"%d\">%s</text>\n",
              LEFT + plotW + 38,
              legendY + 4,
              escape(s.getKey())));
      legendY += 18;
    }
    svg.append("</svg>\n");
    return svg.toString();
  }

  private static double niceCeiling(double max) {
    if (max <= 0) {
      return 1;
    }
    double magnitude = Math.pow(10, Math.floor(Math.log10(max)));
    for (double step : new double[] {1, 2, 5, 10}) {
      if (step * magnitude >= max) {
        return step * magnitude;
      }
    }
    return 10 * magnitude;
  }

  private static double x(int index, int count, int plotW) {
    return count <= 1 ? LEFT + plotW / 2.0 : LEFT + 30 + (plotW - 60.0) * index / (count - 1);
  }

  private static double y(double value, double lo, double hi, int plotH, boolean log) {
    double v = log ? Math.log10(value) : value;
    return TOP + plotH - plotH * (v - lo) / (hi - lo);
  }

  private static String trim(double v) {
    return v >= 10 || v == Math.rint(v)
        ? String.format(Locale.ROOT, "%.0f", v)
        : String.format(Locale.ROOT, "%.2g", v);
  }

  private static String escape(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
