package dev.lockstep.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lockstep.conformance.Capability;
import dev.lockstep.conformance.CheckResult;
import dev.lockstep.conformance.ConformanceResult;
import dev.lockstep.conformance.ConformanceRunner;
import dev.lockstep.conformance.ConformanceTarget;
import dev.lockstep.conformance.Reachability;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.FileIODiscovery;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.SupportsAtomicCreate;
import dev.lockstep.fs.SupportsAtomicRename;
import dev.lockstep.lock.LockOptions;
import dev.lockstep.lock.LockServiceDiscovery;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code lockstep conformance}: the vendor kit against any store URI and lock type, with no code.
 *
 * <p>With {@code --store}, the declared capabilities are what the store's jar claims (the mixins
 * its {@code FileIO} implements) and, with {@code --lock}, a lock; the kit then checks each claim.
 * With {@code --properties}, the file declares them (see the conformance-tests README). Exit 0 only
 * when every declared capability holds.
 */
@Command(
    name = "conformance",
    mixinStandardHelpOptions = true,
    description = "Prove that a store (and a lock service) keeps Lockstep's contract.")
final class ConformanceCommand implements Callable<Integer> {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--store",
      paramLabel = "URI",
      description = "A fresh, empty test directory or prefix, e.g. s3://bucket/conformance")
  String store;

  @Option(
      names = {"-o", "--option"},
      paramLabel = "KEY=VALUE",
      description = "A catalog option (store and lock options), repeatable")
  Map<String, String> options;

  @Option(names = "--lock", paramLabel = "TYPE", description = "Also check this lock.type")
  String lock;

  @Option(
      names = "--properties",
      paramLabel = "FILE",
      description = "A properties file naming uri, capabilities and options")
  java.nio.file.Path properties;

  @Option(
      names = "--report",
      paramLabel = "DIR",
      description = "Write conformance-report.html and JUnit XML here")
  java.nio.file.Path report;

  @Option(names = "--json", description = "Print one JSON object instead of the summary")
  boolean json;

  @Override
  public Integer call() throws IOException {
    PrintWriter out = spec.commandLine().getOut();
    ConformanceResult result;
    try {
      result = ConformanceRunner.run(target());
    } catch (Reachability.UnreachableTargetException e) {
      throw new UserError(e.getMessage(), OneLineErrors.ENVIRONMENT);
    }
    if (report != null) {
      ConformanceRunner.writeReports(result, report);
    }
    if (json) {
      out.println(json(result));
    } else {
      java.io.ByteArrayOutputStream buffer = new java.io.ByteArrayOutputStream();
      try (java.io.PrintStream ps =
          new java.io.PrintStream(buffer, true, java.nio.charset.StandardCharsets.UTF_8)) {
        ConformanceRunner.printSummary(result, ps);
      }
      out.print(buffer.toString(java.nio.charset.StandardCharsets.UTF_8));
      if (report != null) {
        out.println(
            "Reports: "
                + report.resolve(ConformanceRunner.HTML_REPORT)
                + " and "
                + report.resolve(ConformanceRunner.XML_REPORT));
      }
    }
    out.flush();
    return result.passed() ? 0 : OneLineErrors.BROKEN;
  }

  private ConformanceTarget target() throws IOException {
    if (properties != null && store != null) {
      throw new UserError("give either --store or --properties, not both");
    }
    if (properties != null) {
      if (!java.nio.file.Files.isRegularFile(properties)) {
        throw new UserError("properties file '" + properties + "' does not exist");
      }
      return ConformanceTarget.fromProperties(properties);
    }
    if (store == null) {
      throw new UserError(
          "missing --store URI (a fresh test directory or prefix) or --properties"
              + " FILE; see 'lockstep conformance --help'");
    }
    Map<String, String> opts = new LinkedHashMap<>(KeyValues.trimmed(options));
    OptionKeys.validate(opts);
    if (lock != null) {
      opts.put(LockOptions.LOCK_TYPE, lock);
      if (!LockServiceDiscovery.factories(getClass().getClassLoader()).containsKey(lock)) {
        throw new UserError(
            "unknown lock type '"
                + lock
                + "'. Lock types found: "
                + LockServiceDiscovery.factories(getClass().getClassLoader()).keySet());
      }
    }
    // Reachable first (within seconds), so that finding the store's capabilities below cannot sit
    // in a client's retries against a closed port.
    Reachability.check(ConformanceTarget.builder().uri(store).options(opts).build());
    boolean atomicCreate;
    boolean atomicRename;
    try (FileIO io = FileIODiscovery.open(Path.of(store), opts)) {
      atomicCreate = io instanceof SupportsAtomicCreate;
      atomicRename = io instanceof SupportsAtomicRename;
    }
    return ConformanceTarget.builder()
        .uri(store)
        .options(opts)
        .declare(Capability.STORE_BASICS, true)
        .declare(Capability.ATOMIC_CREATE, atomicCreate)
        .declare(Capability.ATOMIC_RENAME, atomicRename)
        .declare(Capability.LOCK, lock != null)
        .build();
  }

  private static String json(ConformanceResult result) {
    ObjectNode root = Json.object();
    root.put("target", result.targetDescription());
    root.put("passed", result.passed());
    root.put("verdict", result.verdict());
    ObjectNode checks = root.putObject("checks");
    checks.put("passed", result.count(CheckResult.Status.PASSED));
    checks.put("failed", result.count(CheckResult.Status.FAILED));
    checks.put("skipped", result.count(CheckResult.Status.SKIPPED));
    ObjectNode capabilities = root.putObject("capabilities");
    for (ConformanceResult.CapabilityRow row : result.capabilityMatrix()) {
      ObjectNode capability = capabilities.putObject(row.capability().name().toLowerCase());
      if (row.declared().isPresent()) {
        capability.put("declared", row.declared().get());
      } else {
        capability.putNull("declared");
      }
      capability.put("observed", row.observed().name());
    }
    ArrayNode safe = root.putArray("safeStrategies");
    for (ConformanceResult.StrategyVerdict verdict : result.strategies()) {
      if (verdict.safe()) {
        safe.add(verdict.strategy());
      }
    }
    ArrayNode failures = root.putArray("failures");
    for (CheckResult check : result.checks()) {
      if (check.status() == CheckResult.Status.FAILED) {
        failures.addObject().put("check", check.name()).put("reason", check.reason());
      }
    }
    return Json.write(root);
  }
}
