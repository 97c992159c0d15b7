package dev.lockstep.options;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class EditDistanceTest {

  @Test
  void distancesAndTheNearestCandidateWithinALimit() {
    assertThat(EditDistance.between("", "abc")).isEqualTo(3);
    assertThat(EditDistance.between("lock.typ", "lock.type")).isEqualTo(1);
    assertThat(EditDistance.between("kitten", "sitting")).isEqualTo(3);
    List<String> ids = List.of("lockstep-zookeeper", "lockstep-jdbc", "lockstep-hive");
    assertThat(EditDistance.nearest("LOCKSTEP-JDCB", ids, 3)).contains("lockstep-jdbc");
    assertThat(EditDistance.nearest("etcd", ids, 3)).isEmpty();
    assertThat(EditDistance.nearest("x", List.of(), Integer.MAX_VALUE)).isEmpty();
  }
}
