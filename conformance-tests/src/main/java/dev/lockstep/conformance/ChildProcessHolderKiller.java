package dev.lockstep.conformance;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The default {@link HolderKiller}: a child JVM on this JVM's classpath ({@code java} from {@code
 * java.home}) runs {@link HolderProcess}, which opens the lock through {@code LockServiceDiscovery}
 * with the target's options, acquires the key, prints {@code HELD <token>} and halts with {@code
 * Runtime.halt()}: no release, no shutdown hook, no finally block.
 *
 * <ol>
 *   <li>The options go to the child in a temporary properties file readable by the owner only (they
 *       may hold secrets; nothing is put on the command line), deleted afterwards.
 *   <li>The parent waits for the {@code HELD} line, then for the process to end, and returns the
 *       token; the caller measures from there.
 * </ol>
 */
final class ChildProcessHolderKiller implements HolderKiller {

  private final ConformanceTarget target;

  ChildProcessHolderKiller(ConformanceTarget target) {
    this.target = target;
  }

  @Override
  public long acquireAndDie(String key) throws IOException, InterruptedException {
    if (target.lockType() == null) {
      throw new IllegalStateException(
          "The holder-death check kills a lock holder in a child JVM, which opens the lock through"
              + " LockServiceDiscovery and so needs 'lock.type'. Set lock.type, or pass"
              + " ConformanceTarget.builder().holderKiller(...) for an in-JVM lock.");
    }
    Duration wait = target.settings().scaled(Duration.ofSeconds(90));
    java.nio.file.Path optionsFile =
        Files.createTempFile(
            "lockstep-holder-",
            ".properties",
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Process process = null;
    try {
      Properties properties = new Properties();
      properties.putAll(target.options());
      try (OutputStream out = Files.newOutputStream(optionsFile)) {
        properties.store(out, "lock options for the holder-death check");
      }
      List<String> command = new ArrayList<>();
      command.add(java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString());
      command.add("-Xmx256m");
      command.add("-cp");
      command.add(System.getProperty("java.class.path"));
      command.add(HolderProcess.class.getName());
      command.add(optionsFile.toString());
      command.add(key);
      command.add(Long.toString(wait.toMillis()));
      process = new ProcessBuilder(command).redirectErrorStream(true).start();
      Process child = process;
      CompletableFuture<List<String>> lines =
          CompletableFuture.supplyAsync(() -> readUntilHeld(child));
      List<String> output;
      try {
        output = lines.get(wait.toMillis(), TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        throw new IOException(
            "The holder JVM did not acquire '" + key + "' within " + wait.toSeconds() + " s");
      } catch (ExecutionException e) {
        throw new IOException("Could not read the holder JVM's output", e.getCause());
      }
      String last = output.isEmpty() ? "" : output.get(output.size() - 1);
      if (!last.startsWith(HolderProcess.HELD)) {
        throw new IOException(
            "The holder JVM failed before holding '"
                + key
                + "'. Its output:\n"
                + String.join("\n", output));
      }
      if (!process.waitFor(wait.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new IOException("The holder JVM did not halt after acquiring '" + key + "'");
      }
      return Long.parseLong(last.substring(HolderProcess.HELD.length()).trim());
    } finally {
      if (process != null && process.isAlive()) {
        process.destroyForcibly();
      }
      Files.deleteIfExists(optionsFile);
    }
  }

  private static List<String> readUntilHeld(Process process) {
    List<String> lines = new ArrayList<>();
    try (BufferedReader reader =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = reader.readLine()) != null) {
        lines.add(line);
        if (line.startsWith(HolderProcess.HELD)) {
          break;
        }
      }
    } catch (IOException e) {
      lines.add("(reading the output failed: " + e + ")");
    }
    return lines;
  }
}
