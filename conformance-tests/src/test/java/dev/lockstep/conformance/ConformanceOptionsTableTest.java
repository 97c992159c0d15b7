package dev.lockstep.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.catalog.CatalogOptions;
import dev.lockstep.options.OptionsTable;
import dev.lockstep.options.UnknownOptionException;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The kit's settings table is its declarations; a misspelt setting is refused, not ignored. */
class ConformanceOptionsTableTest {

  @Test
  void readmeTableIsCurrent() throws Exception {
    OptionsTable.verify(Path.of("README.md"), "conformance-tests", ConformanceSettings.OPTIONS);
  }

  @Test
  void aMisspeltSettingNamesTheNearestKeyAsTheCatalogDoes() {
    Map<String, String> options = Map.of("conformance.round", "5", "lock.type", "zookeeper");
    Throwable direct =
        org.assertj.core.api.Assertions.catchThrowable(() -> ConformanceSettings.from(options));
    assertThat(direct)
        .isInstanceOf(UnknownOptionException.class)
        .hasMessageStartingWith(
            "Unknown option 'conformance.round'. Did you mean" + " 'conformance.rounds'?");
    assertThatThrownBy(() -> CatalogOptions.onClassPath(getClass().getClassLoader()).check(options))
        .hasMessage(direct.getMessage());
  }

  @Test
  void sizesAcceptBothSpellings() {
    assertThat(
            ConformanceSettings.from(Map.of("conformance.large-object-size", "64 mb"))
                .largeObjectBytes())
        .isEqualTo(
            ConformanceSettings.from(Map.of("conformance.large-object-size", "64MiB"))
                .largeObjectBytes());
  }
}
