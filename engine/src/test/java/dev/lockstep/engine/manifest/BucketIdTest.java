package dev.lockstep.engine.manifest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class BucketIdTest {

  @Test
  void directoriesOfPartitionedAndUnpartitionedBuckets() {
    assertThat(new BucketId("", 3).directory()).isEqualTo("bucket-3");
    assertThat(new BucketId("dt=2026-12-04/h=1", 0).directory())
        .isEqualTo("dt=2026-12-04/h=1/bucket-0");
    assertThat(BucketId.isDirectoryName("bucket-12")).isTrue();
    assertThat(BucketId.isDirectoryName("dt=1")).isFalse();
    assertThat(new BucketId("a=1", 2))
        .isEqualTo(new BucketId("a=1", 2))
        .isNotEqualTo(new BucketId("a=1", 3))
        .isNotEqualTo(new BucketId("a=2", 2));
  }

  @Test
  void refusesANullPartitionAndANegativeBucket() {
    assertThatThrownBy(() -> new BucketId(null, 0)).hasMessageContaining("never null");
    assertThatThrownBy(() -> new BucketId("", -1)).hasMessageContaining("start at 0");
  }
}
