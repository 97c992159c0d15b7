package dev.lockstep.fs.hdfs;

import java.net.URI;
import org.apache.hadoop.fs.RawLocalFileSystem;

/**
 * A Hadoop filesystem under its own scheme, {@code aliasfs:///}, standing in for a vendor
 * filesystem whose Hadoop client is on the classpath (local files underneath). Its rename replaces
 * an existing target on POSIX, so nobody should vouch for it: exactly the kind of store that must
 * not declare atomic rename by default.
 */
public final class AliasedLocalFileSystem extends RawLocalFileSystem {

  static final String SCHEME = "aliasfs";

  @Override
  public URI getUri() {
    return URI.create(SCHEME + ":///");
  }

  @Override
  public String getScheme() {
    return SCHEME;
  }
}
