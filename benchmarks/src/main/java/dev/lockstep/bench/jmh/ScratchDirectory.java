package dev.lockstep.bench.jmh;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Temporary directories of the benchmarks, deleted at tear-down. */
public final class ScratchDirectory {

  private ScratchDirectory() {}

  public static Path create(String prefix) {
    try {
      return Files.createTempDirectory(prefix);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create a temporary directory for the benchmark", e);
    }
  }

  /**
   * Deletes {@code dir} and everything below it; what cannot be deleted is left (it is temporary).
   */
  public static void delete(Path dir) {
    if (dir == null || !Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException | UncheckedIOException e) {
      System.err.println("Could not delete " + dir + ": " + e);
    }
  }
}
