package dev.lockstep.bench.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Appends the JMH microbenchmarks (workload 4) to {@code RESULTS.md} from JMH's JSON result file:
 * one row per benchmark and parameter set, with the score, its 99.9% error, the fastest and slowest
 * measured iteration, the unit and the JMH settings it ran with.
 *
 * <pre>
 * JmhReport --json FILE --results RESULTS.md [--command TEXT]
 * </pre>
 */
public final class JmhReport {

  private JmhReport() {}

  public static void main(String[] args) throws IOException {
    Path json = null;
    Path results = null;
    String command = null;
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--json" -> json = Path.of(args[i + 1]);
        case "--results" -> results = Path.of(args[i + 1]);
        case "--command" -> command = args[i + 1];
        default ->
            throw new IllegalArgumentException(
                "Unknown option '"
                    + args[i]
                    + "'; expected --json FILE --results RESULTS.md [--command TEXT]");
      }
    }
    if (json == null || results == null) {
      throw new IllegalArgumentException(
          "Usage: JmhReport --json FILE --results RESULTS.md" + " [--command TEXT]");
    }
    Files.writeString(
        results,
        markdown(new ObjectMapper().readTree(json.toFile()), command),
        StandardOpenOption.APPEND);
    System.out.println("Appended the JMH results of " + json + " to " + results);
  }

  static String markdown(JsonNode runs, String command) {
    StringBuilder md = new StringBuilder();
    md.append("\n## 4. Microbenchmarks of the commit path (JMH)\n\n");
    md.append(
        "Average time of one operation, single thread, no contention; error is JMH's 99.9%"
            + " confidence half-width over the measurement iterations. Snapshot commits run on the"
            + " local store; lock backends are opened by `lock.type` as a catalog opens them. See"
            + " README.md for what each one includes.\n\n");
    if (command != null) {
      md.append("```\n").append(command).append("\n```\n\n");
    }
    md.append(
        "| benchmark | parameter | score | error (99.9%) | iterations min .. max | unit |"
            + " forks x iterations |\n");
    md.append("|---|---|---|---|---|---|---|\n");
    List<String> failures = new ArrayList<>();
    for (JsonNode run : runs) {
      String name = run.path("benchmark").asText();
      name = name.substring(name.lastIndexOf('.', name.lastIndexOf('.') - 1) + 1);
      List<String> params = new ArrayList<>();
      for (Iterator<Map.Entry<String, JsonNode>> it = run.path("params").fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> p = it.next();
        params.add(p.getKey() + "=" + p.getValue().asText());
      }
      JsonNode metric = run.path("primaryMetric");
      double score = metric.path("score").asDouble();
      JsonNode error = metric.path("scoreError");
      double min = Double.MAX_VALUE;
      double max = -Double.MAX_VALUE;
      for (JsonNode fork : metric.path("rawData")) {
        for (JsonNode iteration : fork) {
          min = Math.min(min, iteration.asDouble());
          max = Math.max(max, iteration.asDouble());
        }
      }
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s | %s | %s | %s | %d x %d (warm-up %d x"
                  + " %s, measured %s each) |%n",
              name,
              params.isEmpty() ? "-" : String.join(", ", params),
              number(score),
              error.isNumber() && !Double.isNaN(error.asDouble())
                  ? "± " + number(error.asDouble())
                  : "-",
              min <= max ? number(min) + " .. " + number(max) : "-",
              metric.path("scoreUnit").asText(),
              run.path("forks").asInt(),
              run.path("measurementIterations").asInt(),
              run.path("warmupIterations").asInt(),
              run.path("warmupTime").asText(),
              run.path("measurementTime").asText()));
    }
    if (!runs.isArray() || runs.isEmpty()) {
      failures.add("JMH wrote no results (see the console output of the run).");
    }
    for (String f : failures) {
      md.append("\n**").append(f).append("**\n");
    }
    return md.toString();
  }

  private static String number(double v) {
    return v >= 100
        ? String.format(Locale.ROOT, "%,.0f", v)
        : String.format(Locale.ROOT, "%.2f", v);
  }
}
