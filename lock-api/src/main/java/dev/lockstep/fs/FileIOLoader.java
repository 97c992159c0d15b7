package dev.lockstep.fs;

import dev.lockstep.options.OptionsProvider;
import java.io.IOException;
import java.util.Map;
import java.util.Set;

/**
 * Service-provider interface that builds a {@link FileIO} for URI schemes. Registered in {@code
 * META-INF/services/dev.lockstep.fs.FileIOLoader} and found by {@link FileIODiscovery}.
 *
 * <p>{@link #options()} declares the keys the store reads and the namespace it owns ({@code s3.}):
 * {@link #load} refuses an unknown key inside that namespace and ignores every other key, since
 * engines hand all catalog options to every store.
 */
public interface FileIOLoader extends OptionsProvider {

  /** The lower-case URI schemes served, for example {@code s3} and {@code s3a}. */
  Set<String> schemes();

  /**
   * Builds a store for {@code root}.
   *
   * @param root a path whose scheme is one of {@link #schemes()}
   * @param options catalog options; each store reads its own namespaced keys
   * @throws IllegalArgumentException when an option is invalid, with the key and the fix
   */
  FileIO load(Path root, Map<String, String> options) throws IOException;
}
