package dev.lockstep.cli;

import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.FileIOLoader;
import dev.lockstep.fs.FileStatus;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.SeekableInputStream;
import dev.lockstep.fs.SupportsAtomicCreate;
import dev.lockstep.fs.SupportsAtomicRename;
import dev.lockstep.fs.UncertainWriteException;
import dev.lockstep.fs.local.LocalFileIO;
import dev.lockstep.options.OptionSet;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URL;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The {@code lockstep} command line (a process of its own, for real signals) whose local store
 * holds the publish of one snapshot file in flight, for {@link UnknownOutcomeTest}: the commit's
 * request is on the wire when the signal comes. System properties:
 *
 * <ul>
 *   <li>{@code held.snapshot}: the snapshot file whose publish is held ({@code snapshot-2});
 *   <li>{@code held.marker}: a file created once that publish is in flight (the test signals then);
 *   <li>{@code held.late}: where the held bytes are saved when the caller gives up: the request is
 *       still on the wire, and the test decides whether it lands (copies them into place) or is
 *       lost.
 * </ul>
 *
 * <p>When the command's thread is interrupted during the held publish, the store answers as a
 * client whose request may still land: {@link UncertainWriteException}, the interrupt flag kept.
 * Every other call goes to {@link LocalFileIO} unchanged.
 */
public final class HeldPublishCli {

  private static final String SERVICES = "META-INF/services/" + FileIOLoader.class.getName();

  private HeldPublishCli() {}

  public static void main(String[] args) throws IOException {
    // Serve file:// with the holding store: its loader is found first (FileIODiscovery keeps the
    // first loader of a scheme), through the context class loader the command line opens with.
    java.nio.file.Path services = Files.createTempFile("held-publish", ".services");
    services.toFile().deleteOnExit();
    Files.writeString(services, Loader.class.getName() + "\n");
    URL first = services.toUri().toURL();
    ClassLoader app = HeldPublishCli.class.getClassLoader();
    Thread.currentThread()
        .setContextClassLoader(
            new ClassLoader(app) {
              @Override
              public Enumeration<URL> getResources(String name) throws IOException {
                if (!name.equals(SERVICES)) {
                  return super.getResources(name);
                }
                List<URL> all = new ArrayList<>();
                all.add(first);
                all.addAll(Collections.list(super.getResources(name)));
                return Collections.enumeration(all);
              }
            });
    LockstepCli.main(args);
  }

  /** Serves {@code file://} with a {@link HeldStore} over {@link LocalFileIO}. */
  public static final class Loader implements FileIOLoader {
    @Override
    public Set<String> schemes() {
      return Set.of("file");
    }

    @Override
    public OptionSet options() {
      return OptionSet.of("the held-publish test store", "cli/README.md").build();
    }

    @Override
    public FileIO load(Path root, Map<String, String> options) {
      return new HeldStore(new LocalFileIO());
    }
  }

  /** {@link LocalFileIO}, but for the one held publish. */
  static final class HeldStore implements FileIO, SupportsAtomicCreate, SupportsAtomicRename {
    private final LocalFileIO local;
    private final String held = System.getProperty("held.snapshot");
    private final AtomicBoolean armed = new AtomicBoolean(true);

    HeldStore(LocalFileIO local) {
      this.local = local;
    }

    private boolean holds(Path target) {
      return held != null && target.name().equals(held) && armed.getAndSet(false);
    }

    /** In flight until the caller is interrupted; then the bytes wait for the test to land. */
    private void hold(Path target, byte[] content) throws IOException {
      Files.writeString(java.nio.file.Path.of(System.getProperty("held.marker")), target.name());
      try {
        while (true) {
          Thread.sleep(60_000);
        }
      } catch (InterruptedException e) {
        Files.write(java.nio.file.Path.of(System.getProperty("held.late")), content);
        Thread.currentThread().interrupt();
        throw new UncertainWriteException(
            target, "the client was interrupted with the request in flight", e);
      }
    }

    @Override
    public void createAtomically(Path path, byte[] content) throws IOException {
      if (holds(path)) {
        hold(path, content);
      }
      local.createAtomically(path, content);
    }

    @Override
    public void renameAtomically(Path source, Path target) throws IOException {
      if (holds(target)) {
        byte[] content;
        try (SeekableInputStream in = local.newInputStream(source)) {
          content = in.readAllBytes();
        }
        hold(target, content);
      }
      local.renameAtomically(source, target);
    }

    @Override
    public SeekableInputStream newInputStream(Path path) throws IOException {
      return local.newInputStream(path);
    }

    @Override
    public OutputStream newOutputStream(Path path, boolean overwrite) throws IOException {
      return local.newOutputStream(path, overwrite);
    }

    @Override
    public FileStatus getStatus(Path path) throws IOException {
      return local.getStatus(path);
    }

    @Override
    public boolean exists(Path path) throws IOException {
      return local.exists(path);
    }

    @Override
    public List<FileStatus> list(Path directory) throws IOException {
      return local.list(directory);
    }

    @Override
    public boolean delete(Path path, boolean recursive) throws IOException {
      return local.delete(path, recursive);
    }

    @Override
    public boolean mkdirs(Path path) throws IOException {
      return local.mkdirs(path);
    }

    @Override
    public void close() throws IOException {
      local.close();
    }
  }
}
