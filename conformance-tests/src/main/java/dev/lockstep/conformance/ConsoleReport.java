package dev.lockstep.conformance;

import dev.lockstep.conformance.CheckResult.Status;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Map;

/** The console summary of a conformance run. */
final class ConsoleReport {

  private ConsoleReport() {}

  static void print(ConformanceResult result, PrintStream out) {
    out.println("Lockstep conformance: " + result.verdict());
    for (String warning : result.warnings()) {
      out.println("WARNING (reduced run): " + warning);
    }
    out.println("Target: " + result.targetDescription());
    out.println("Settings: " + result.settings());
    out.printf(
        "Checks: %d passed, %d failed, %d skipped in %.1f s%n",
        result.count(Status.PASSED),
        result.count(Status.FAILED),
        result.count(Status.SKIPPED),
        result.duration().toMillis() / 1000.0);
    out.println();
    out.printf("%-14s %-10s %-12s %s%n", "capability", "declared", "observed", "checks");
    for (ConformanceResult.CapabilityRow row : result.capabilityMatrix()) {
      out.printf(
          "%-14s %-10s %-12s %d passed, %d failed, %d skipped%n",
          row.capability().id(),
          row.declared().map(Object::toString).orElse("MISSING"),
          row.observed(),
          row.passed(),
          row.failed(),
          row.skipped());
    }
    out.println();
    out.println("Commit strategies:");
    for (ConformanceResult.StrategyVerdict s : result.strategies()) {
      out.printf("  %-14s %-8s %s%n", s.strategy(), s.safe() ? "SAFE" : "not safe", s.why());
    }
    out.println();
    for (CheckResult check : result.checks()) {
      if (check.status() != Status.PASSED) {
        out.printf(
            "%-7s %s%n        %s%n",
            check.status(),
            check.name(),
            firstLines(check.reason(), 6).replace("\n", "\n        "));
      }
    }
    Map<String, Latencies.Percentiles> latencies = result.latencies();
    if (!latencies.isEmpty()) {
      out.println();
      out.printf(
          "%-26s %8s %10s %10s %10s %10s%n",
          "operation", "calls", "p50 ms", "p95 ms", "p99 ms", "max ms");
      latencies.forEach(
          (op, p) ->
              out.printf(
                  "%-26s %8d %10.2f %10.2f %10.2f %10.2f%n",
                  op,
                  p.count(),
                  millis(p.p50()),
                  millis(p.p95()),
                  millis(p.p99()),
                  millis(p.max())));
    }
  }

  static double millis(Duration d) {
    return d.toNanos() / 1_000_000.0;
  }

  static String firstLines(String text, int lines) {
    String[] parts = text.split("\n", lines + 1);
    if (parts.length <= lines) {
      return text;
    }
    return String.join("\n", java.util.Arrays.copyOf(parts, lines)) + "\n...";
  }
}
