package dev.lockstep.flink;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;

/**
 * The bundle jar of this Flink line (built by {@code package}): every class is Lockstep's own or
 * relocated under {@code dev.lockstep.shaded.flink}, no Flink or SLF4J class is inside, and the
 * catalog and table factories are registered for Flink's factory discovery.
 */
class BundleIT {

  @Test
  void everyThirdPartyClassIsRelocatedAndTheFactoriesAreRegistered() throws Exception {
    String path = System.getProperty("lockstep.flink.bundle");
    assertThat(path).as("system property lockstep.flink.bundle").isNotNull();
    List<String> foreign = new ArrayList<>();
    int relocated = 0;
    try (JarFile jar = new JarFile(path)) {
      for (JarEntry e : java.util.Collections.list(jar.entries())) {
        String name = e.getName();
        if (!name.endsWith(".class")) {
          continue;
        }
        if (name.startsWith("dev/lockstep/shaded/flink/")) {
          relocated++;
        } else if (!name.startsWith("dev/lockstep/") || name.startsWith("dev/lockstep/shaded/")) {
          foreign.add(name);
        }
      }
      assertThat(foreign).as("classes neither Lockstep's nor relocated").isEmpty();
      assertThat(relocated).as("relocated Jackson and Avro classes").isGreaterThan(1000);
      assertThat(jar.getEntry("dev/lockstep/flink/sink/LockstepSink.class")).isNotNull();
      assertThat(jar.getEntry("dev/lockstep/flink/CompactionJob.class")).isNotNull();
      String factories =
          new String(
              jar.getInputStream(
                      jar.getEntry("META-INF/services/org.apache.flink.table.factories.Factory"))
                  .readAllBytes(),
              StandardCharsets.UTF_8);
      assertThat(factories)
          .contains(
              "dev.lockstep.flink.table.LockstepTableFactory",
              "dev.lockstep.flink.table.LockstepCatalogFactory");
      assertThat(jar.getEntry("META-INF/services/dev.lockstep.fs.FileIOLoader")).isNotNull();
    }
  }
}
