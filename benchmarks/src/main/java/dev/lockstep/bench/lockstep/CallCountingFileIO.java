package dev.lockstep.bench.lockstep;

import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.FileStatus;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.SeekableInputStream;
import dev.lockstep.fs.SupportsAtomicCreate;
import dev.lockstep.fs.SupportsAtomicRename;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts a store's calls by operation and kind of file (snapshot, hint, manifest, data), failed
 * calls included, for the contention benchmark's "what does a lost race cost" breakdown ({@code
 * -Dlockstep.bench.count-store=true}). A plain delegate otherwise: the counts are the work.
 */
final class CallCountingFileIO implements SupportsAtomicCreate, SupportsAtomicRename {

  private final FileIO delegate;
  private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();

  CallCountingFileIO(FileIO delegate) {
    this.delegate = delegate;
  }

  private void count(String op, Path path) {
    counts.computeIfAbsent(op + " " + kind(path), k -> new LongAdder()).increment();
  }

  static String kind(Path path) {
    String name = path.name();
    String s = path.toString();
    if (name.startsWith("snapshot-")) {
      return "snapshot";
    }
    if (name.equals("LATEST") || name.equals("EARLIEST")) {
      return "hint";
    }
    if (name.equals("PRIORITY")) {
      return "priority";
    }
    if (s.contains("/snapshot")) {
      return "snapshot-dir";
    }
    if (name.startsWith("manifest-list")) {
      return "manifest-list";
    }
    if (s.contains("/manifest")) {
      return "manifest";
    }
    if (s.contains("/index")) {
      return "index";
    }
    return "data/other";
  }

  /** The counts so far, "operation kind" to calls, sorted. */
  Map<String, Long> counts() {
    Map<String, Long> out = new TreeMap<>();
    counts.forEach((k, v) -> out.put(k, v.sum()));
    return out;
  }

  @Override
  public SeekableInputStream newInputStream(Path path) throws IOException {
    count("read", path);
    return delegate.newInputStream(path);
  }

  @Override
  public OutputStream newOutputStream(Path path, boolean overwrite) throws IOException {
    count("write", path);
    return delegate.newOutputStream(path, overwrite);
  }

  @Override
  public FileStatus getStatus(Path path) throws IOException {
    count("status", path);
    return delegate.getStatus(path);
  }

  @Override
  public boolean exists(Path path) throws IOException {
    count("exists", path);
    return delegate.exists(path);
  }

  @Override
  public List<FileStatus> list(Path directory) throws IOException {
    count("list", directory);
    return delegate.list(directory);
  }

  @Override
  public boolean delete(Path path, boolean recursive) throws IOException {
    count("delete", path);
    return delegate.delete(path, recursive);
  }

  @Override
  public boolean mkdirs(Path path) throws IOException {
    count("mkdirs", path);
    return delegate.mkdirs(path);
  }

  @Override
  public void createAtomically(Path path, byte[] content) throws IOException {
    count("create", path);
    ((SupportsAtomicCreate) delegate).createAtomically(path, content);
  }

  @Override
  public void renameAtomically(Path source, Path target) throws IOException {
    count("rename", target);
    ((SupportsAtomicRename) delegate).renameAtomically(source, target);
  }

  @Override
  public void close() throws IOException {
    delegate.close();
  }

  @Override
  public String toString() {
    return delegate.toString();
  }
}
