package dev.lockstep.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PathTest {

  @Test
  void objectStorePathHasSchemeAuthorityAndPathPart() {
    Path path = Path.of("s3://my-bucket/warehouse/db.db/t/snapshot/snapshot-7");

    assertThat(path.scheme()).isEqualTo("s3");
    assertThat(path.authority()).isEqualTo("my-bucket");
    assertThat(path.pathPart()).isEqualTo("/warehouse/db.db/t/snapshot/snapshot-7");
    assertThat(path.name()).isEqualTo("snapshot-7");
    assertThat(path.parent()).isEqualTo(Path.of("s3://my-bucket/warehouse/db.db/t/snapshot"));
  }

  @Test
  void schemeIsLowerCasedButTheLocationIsKeptAsWritten() {
    Path path = Path.of("OSS://Bucket/A/b");

    assertThat(path.scheme()).isEqualTo("oss");
    assertThat(path.authority()).isEqualTo("Bucket");
    assertThat(path).hasToString("OSS://Bucket/A/b");
  }

  @Test
  void barePathHasNoSchemeAndNoAuthority() {
    Path path = Path.of("/tmp/table/snapshot");

    assertThat(path.scheme()).isNull();
    assertThat(path.authority()).isEmpty();
    assertThat(path.pathPart()).isEqualTo("/tmp/table/snapshot");
    assertThat(path.parent()).isEqualTo(Path.of("/tmp/table"));
    assertThat(Path.of("/").parent()).isNull();
  }

  @Test
  void doubleAndTrailingSlashesAreFoldedInThePathPartOnly() {
    assertThat(Path.of("s3://b//a///c/")).hasToString("s3://b/a/c");
    assertThat(Path.of("/x//y/")).hasToString("/x/y");
    assertThat(Path.of("file:///tmp//t")).hasToString("file:///tmp/t");
    assertThat(Path.of("hdfs://nn:8020/a").authority()).isEqualTo("nn:8020");
  }

  @Test
  void namesWithSpacesUnicodeAndPercentStayExactlyAsWritten() {
    Path path = Path.of("s3://b/dir with space/表/100%25/é");

    assertThat(path).hasToString("s3://b/dir with space/表/100%25/é");
    assertThat(path.name()).isEqualTo("é");
    assertThat(path.parent().name()).isEqualTo("100%25");
  }

  @Test
  void childAppendsOneOrMoreNames() {
    Path root = Path.of("s3://b/t");

    assertThat(root.child("snapshot/snapshot-1")).hasToString("s3://b/t/snapshot/snapshot-1");
    assertThat(root.child("/LATEST")).hasToString("s3://b/t/LATEST");
    assertThat(Path.of("s3://b").child("k")).hasToString("s3://b/k");
    assertThatThrownBy(() -> root.child("")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void somethingThatOnlyLooksLikeASchemeIsABarePath() {
    Path path = Path.of("1abc://x/y");

    assertThat(path.scheme()).isNull();
    assertThat(path.pathPart()).isEqualTo("1abc:/x/y");
  }

  @Test
  void emptyAndNullLocationsAreRejected() {
    assertThatThrownBy(() -> Path.of(""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("empty");
    assertThatThrownBy(() -> Path.of(null)).isInstanceOf(NullPointerException.class);
  }

  @Test
  void equalityAndOrderFollowTheLocationString() {
    assertThat(Path.of("s3://b/a"))
        .isEqualTo(Path.of("s3://b/a/"))
        .hasSameHashCodeAs(Path.of("s3://b//a"));
    assertThat(Path.of("s3://b/a")).isLessThan(Path.of("s3://b/b"));
  }
}
