package dev.lockstep.conformance;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.lockstep.conformance.CheckResult.Status;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.TestSource;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * Runs the conformance contracts for one target on the JUnit Platform Launcher and writes the
 * reports. A vendor runs it without code:
 *
 * <pre>
 * java -cp 'lockstep-conformance-tests.jar:lib/*:vendor-backend.jar' \
 *     dev.lockstep.conformance.ConformanceRunner --properties vendor.properties --report out/
 * </pre>
 *
 * <ol>
 *   <li>Every contract runs against the target ({@link #run}); latencies are measured meanwhile.
 *   <li>The console gets a summary; {@code --report DIR} gets {@code conformance-report.html} (one
 *       self-contained file) and {@code TEST-lockstep-conformance.xml} (JUnit XML).
 *   <li>Exit code 0 when the backend conforms, 1 when a check failed, nothing ran or a capability
 *       was not declared, 2 on a usage or configuration error, 3 when the store or lock service
 *       cannot be reached ({@link Reachability}, within seconds; no check runs).
 * </ol>
 *
 * <p>Runs are serialized within a JVM: the process-wide latency recorder and the runner's contract
 * classes serve one run at a time.
 */
public final class ConformanceRunner {

  /** File name of the HTML report in the report directory. */
  public static final String HTML_REPORT = "conformance-report.html";

  /** File name of the JUnit XML report in the report directory. */
  public static final String XML_REPORT = "TEST-lockstep-conformance.xml";

  /** The JUnit configuration parameter carrying the id of the run a check belongs to. */
  static final String RUN_PARAMETER = "lockstep.conformance.run";

  /**
   * The runs in progress, by run id: how a check launched by JUnit finds its run's target and
   * latency recorder (JUnit 5.11 passes only strings to the tests it launches). No run shares state
   * with another, so runs may go on at the same time.
   */
  private static final Map<String, Run> RUNS = new ConcurrentHashMap<>();

  /** One run: its target and the latencies its checks measure. */
  record Run(ConformanceTarget target, Latencies latencies) {}

  private ConformanceRunner() {}

  /** The run with id {@code runId}, while it goes on. */
  static Optional<Run> run(String runId) {
    return Optional.ofNullable(RUNS.get(runId));
  }

  /**
   * Runs every contract against {@code target}.
   *
   * @throws Reachability.UnreachableTargetException when the store or lock service cannot be
   *     reached ({@link Reachability}); no contract ran
   */
  public static ConformanceResult run(ConformanceTarget target) {
    return run(target, RunnerContracts.all());
  }

  /**
   * Runs the given contracts (subclasses of the kit's contracts that return {@code target}, or the
   * runner's own) against {@code target}, once {@link Reachability} found the target reachable.
   *
   * @throws Reachability.UnreachableTargetException when the store or lock service cannot be
   *     reached; no contract ran
   */
  public static ConformanceResult run(
      ConformanceTarget target, List<Class<? extends ConformanceContract>> contracts) {
    ConformanceSettings settings = target.settings(); // bad settings fail here, before any check
    Reachability.check(target);
    Instant started = Instant.now();
    long start = System.nanoTime();
    Run run = new Run(target, new Latencies());
    String runId = UUID.randomUUID().toString();
    RUNS.put(runId, run);
    Collector collector = new Collector();
    try {
      LauncherDiscoveryRequestBuilder request =
          LauncherDiscoveryRequestBuilder.request()
              .configurationParameter("junit.jupiter.extensions.autodetection.enabled", "false")
              .configurationParameter(RUN_PARAMETER, runId);
      contracts.forEach(c -> request.selectors(selectClass(c)));
      LauncherDiscoveryRequest built = request.build();
      Launcher launcher = LauncherFactory.create();
      launcher.execute(built, collector);
    } finally {
      RUNS.remove(runId);
    }
    return new ConformanceResult(
        target.toString(),
        settings.toString(),
        settings.reductions(),
        target.declarations(),
        collector.results,
        run.latencies().snapshot(),
        started,
        Duration.ofNanos(System.nanoTime() - start));
  }

  /**
   * Writes {@value #HTML_REPORT} and {@value #XML_REPORT} into {@code directory} (created if
   * missing).
   */
  public static void writeReports(ConformanceResult result, java.nio.file.Path directory)
      throws IOException {
    Files.createDirectories(directory);
    JUnitXmlReport.write(result, directory.resolve(XML_REPORT));
    HtmlReport.write(result, directory.resolve(HTML_REPORT));
  }

  /** Prints the console summary. */
  public static void printSummary(ConformanceResult result, PrintStream out) {
    ConsoleReport.print(result, out);
  }

  /**
   * {@code --properties FILE [--report DIR]}. Exit code 0 conforms, 1 does not, 2 usage or
   * configuration error, 3 cannot reach the target.
   */
  public static void main(String[] args) {
    System.exit(runCli(args, System.out, System.err));
  }

  /** {@link #main} without exiting: returns the exit code. */
  public static int runCli(String[] args, PrintStream out, PrintStream err) {
    java.nio.file.Path properties = null;
    java.nio.file.Path report = null;
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      if ((arg.equals("--properties") || arg.equals("--report")) && i + 1 >= args.length) {
        err.println(arg + " needs a value.");
        err.println(usage());
        return 2;
      }
      switch (arg) {
        case "--properties" -> properties = java.nio.file.Path.of(args[++i]);
        case "--report" -> report = java.nio.file.Path.of(args[++i]);
        case "--help", "-h" -> {
          out.println(usage());
          return 0;
        }
        default -> {
          err.println("Unknown argument '" + arg + "'.");
          err.println(usage());
          return 2;
        }
      }
    }
    if (properties == null) {
      err.println("--properties is required.");
      err.println(usage());
      return 2;
    }
    ConformanceTarget target;
    try {
      target = ConformanceTarget.fromProperties(properties);
      target.settings();
    } catch (IOException | IllegalArgumentException e) {
      err.println("Cannot read the conformance target: " + e.getMessage());
      return 2;
    }
    ConformanceResult result;
    try {
      result = run(target);
    } catch (Reachability.UnreachableTargetException e) {
      err.println(e.getMessage());
      return 3;
    }
    printSummary(result, out);
    if (report != null) {
      try {
        writeReports(result, report);
        out.println(
            "Reports: " + report.resolve(HTML_REPORT) + " and " + report.resolve(XML_REPORT));
      } catch (IOException e) {
        err.println("Could not write the reports to " + report + ": " + e);
        return 2;
      }
    }
    return result.passed() ? 0 : 1;
  }

  static String usage() {
    return "Usage: ConformanceRunner --properties vendor.properties [--report out/]\n"
        + "  vendor.properties: uri=<fresh test directory or prefix>,"
        + " capabilities.store-basics|atomic-create|atomic-rename|lock=true|false, lock.type=...,"
        + " and the backend's options. See the conformance-tests README.";
  }

  /** Turns launcher events into check results. */
  private static final class Collector implements TestExecutionListener {
    final List<CheckResult> results = java.util.Collections.synchronizedList(new ArrayList<>());
    private final Map<String, Long> startedAt = new ConcurrentHashMap<>();

    @Override
    public void executionStarted(TestIdentifier id) {
      startedAt.put(id.getUniqueId(), System.nanoTime());
    }

    @Override
    public void executionSkipped(TestIdentifier id, String reason) {
      if (id.isTest()) {
        results.add(result(id, Status.SKIPPED, reason, "", Duration.ZERO));
      }
    }

    @Override
    public void executionFinished(TestIdentifier id, TestExecutionResult outcome) {
      Long began = startedAt.remove(id.getUniqueId());
      Duration took = began == null ? Duration.ZERO : Duration.ofNanos(System.nanoTime() - began);
      Optional<Throwable> error = outcome.getThrowable();
      String message = error.map(Collector::message).orElse("");
      String detail = error.map(Collector::stackTrace).orElse("");
      if (id.isTest()) {
        Status status =
            switch (outcome.getStatus()) {
              case SUCCESSFUL -> Status.PASSED;
              case ABORTED -> Status.SKIPPED;
              case FAILED -> Status.FAILED;
            };
        results.add(
            result(id, status, status == Status.PASSED ? proves(id) : message, detail, took));
      } else if (outcome.getStatus() == TestExecutionResult.Status.FAILED) {
        // A contract class that could not even start (for example a failing constructor).
        results.add(result(id, Status.FAILED, message, detail, took));
      }
    }

    private static CheckResult result(
        TestIdentifier id, Status status, String reason, String detail, Duration took) {
      TestSource source = id.getSource().orElse(null);
      String contract = "Suite";
      String check = id.getDisplayName();
      if (source instanceof MethodSource m) {
        contract = contractName(m.getClassName());
        check = m.getMethodName();
      } else if (source instanceof ClassSource c) {
        contract = contractName(c.getClassName());
        check = "(contract setup)";
      }
      return new CheckResult(contract, check, status, reason == null ? "" : reason, detail, took);
    }

    private static String contractName(String className) {
      try {
        return RunnerContracts.contractName(
            Class.forName(className, false, ConformanceRunner.class.getClassLoader()));
      } catch (ClassNotFoundException e) {
        return className.substring(className.lastIndexOf('.') + 1);
      }
    }

    private static String proves(TestIdentifier id) {
      if (id.getSource().orElse(null) instanceof MethodSource m) {
        try {
          Method method = m.getJavaMethod();
          Proves proves = method.getAnnotation(Proves.class);
          if (proves != null) {
            return proves.value();
          }
        } catch (RuntimeException e) {
          return "";
        }
      }
      return "";
    }

    private static String message(Throwable t) {
      String m = t.getMessage();
      return m == null ? t.getClass().getName() : m.strip();
    }

    private static String stackTrace(Throwable t) {
      StringWriter w = new StringWriter();
      t.printStackTrace(new PrintWriter(w));
      return w.toString();
    }
  }
}
