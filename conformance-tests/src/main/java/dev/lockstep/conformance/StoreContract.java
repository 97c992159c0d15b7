package dev.lockstep.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.FileStatus;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.SeekableInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Store basics ({@link Capability#STORE_BASICS}): what every {@link FileIO} keeps. Each check
 * writes under its own fresh sub-path of the target URI. A vendor plugs in with one class:
 *
 * <pre>
 * class S3StoreContractTest extends StoreContract {
 *   &#64;Override protected ConformanceTarget target() { return ...; }
 * }
 * </pre>
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
public abstract class StoreContract extends ConformanceContract {

  /** Declared present: the store opens. Declared absent: opening it fails cleanly. */
  @Test
  @Order(1)
  @Proves(
      "The store-basics declaration matches the target: a declared store opens; an absent one fails"
          + " to open with a clear error.")
  public final void storeBasicsDeclarationMatchesTarget() throws IOException {
    if (declaration(Capability.STORE_BASICS)) {
      FileIO store = openStore();
      assertThat(store.exists(checkDirectory().child("nothing-here"))).isFalse();
      return;
    }
    assertThat(currentTarget().hasStore())
        .as(
            "store-basics is declared absent, yet the target configures a store (uri or store"
                + " factory); declare it present or remove the store")
        .isFalse();
    assertThat(catchThrowable(() -> currentTarget().openStore()))
        .as("opening a store that is declared absent must fail with a clear error")
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("uri");
  }

  /** Once a write closes, the same and a second client read the new bytes whole. */
  @Test
  @Order(2)
  @Proves(
      "A closed write is read back whole, by the writer and by a second client, with the right"
          + " length and positioned reads.")
  public final void readAfterWrite() throws IOException {
    requirePresent(Capability.STORE_BASICS);
    FileIO writer = openStore();
    FileIO reader = openStore();
    Path file = checkDirectory().child("read-after-write");
    byte[] content = randomBytes(300_000, 1);
    write(writer, file, content, false);
    assertThat(read(writer, file)).as("read by the writing client").isEqualTo(content);
    assertThat(read(reader, file)).as("read by a second client").isEqualTo(content);
    FileStatus status = reader.getStatus(file);
    assertThat(status.length()).isEqualTo(content.length);
    assertThat(status.directory()).isFalse();
    assertThat(reader.exists(file)).isTrue();
    try (SeekableInputStream in = reader.newInputStream(file)) {
      byte[] middle = new byte[1000];
      in.readFully(123_456, middle, 0, middle.length);
      assertThat(middle).as("positioned read").isEqualTo(slice(content, 123_456, 1000));
    }
  }

  /** overwrite=true replaces the content whole; overwrite=false refuses an existing file. */
  @Test
  @Order(3)
  @Proves(
      "overwrite=true replaces the content whole; overwrite=false refuses an existing file with"
          + " FileAlreadyExistsException.")
  public final void overwriteReplacesAndNoOverwriteRefuses() throws IOException {
    requirePresent(Capability.STORE_BASICS);
    FileIO store = openStore();
    Path file = checkDirectory().child("overwrite");
    write(store, file, randomBytes(50_000, 2), false);
    byte[] second = randomBytes(20_000, 3);
    write(store, file, second, true);
    assertThat(read(openStore(), file)).as("content after overwrite").isEqualTo(second);
    assertThat(catchThrowable(() -> write(store, file, randomBytes(10, 4), false)))
        .as("newOutputStream(existing, overwrite=false)")
        .isInstanceOf(FileAlreadyExistsException.class);
    assertThat(read(store, file)).as("content after a refused write").isEqualTo(second);
  }

  /** A deleted file is gone for every client; deleting it again reports false. */
  @Test
  @Order(4)
  @Proves(
      "A delete is visible at once to every client (exists, read, list), and deleting again reports"
          + " false.")
  public final void deleteIsVisible() throws IOException {
    requirePresent(Capability.STORE_BASICS);
    FileIO store = openStore();
    FileIO other = openStore();
    Path file = checkDirectory().child("to-delete");
    write(store, file, randomBytes(1000, 5), false);
    assertThat(store.delete(file, false)).as("delete of an existing file").isTrue();
    assertThat(other.exists(file)).as("exists after delete, second client").isFalse();
    assertThat(catchThrowable(() -> read(other, file))).isInstanceOf(FileNotFoundException.class);
    assertThat(other.list(checkDirectory()).stream().map(s -> s.path().name()))
        .doesNotContain("to-delete");
    assertThat(store.delete(file, false)).as("delete of a missing file").isFalse();
  }

  /**
   * Every created file is listed at once, by name and size, with sub-directories as directories.
   */
  @Test
  @Order(5)
  @Proves(
      "A listing shows every created file at once with its size, and sub-directories as"
          + " directories.")
  public final void listShowsCreatedFiles() throws IOException {
    requirePresent(Capability.STORE_BASICS);
    FileIO store = openStore();
    Path dir = checkDirectory().child("listed");
    for (int i = 0; i < 12; i++) {
      write(store, dir.child("file-" + i), randomBytes(100 + i, 10 + i), false);
    }
    write(store, dir.child("sub/inner"), randomBytes(7, 99), false);
    List<FileStatus> entries = openStore().list(dir);
    List<String> files =
        entries.stream()
            .filter(s -> !s.directory())
            .map(s -> s.path().name())
            .sorted()
            .collect(Collectors.toList());
    assertThat(files)
        .as(listing(store, dir))
        .containsExactlyInAnyOrder(
            "file-0", "file-1", "file-2", "file-3", "file-4", "file-5", "file-6", "file-7",
            "file-8", "file-9", "file-10", "file-11");
    assertThat(entries)
        .filteredOn(FileStatus::directory)
        .extracting(s -> s.path().name())
        .as("sub-directory listed as a directory")
        .containsExactly("sub");
    for (FileStatus s : entries) {
      if (!s.directory()) {
        int i = Integer.parseInt(s.path().name().substring("file-".length()));
        assertThat(s.length()).as("listed size of " + s.path().name()).isEqualTo(100 + i);
      }
    }
  }

  /** Missing files raise FileNotFoundException, never null; a missing directory lists as empty. */
  @Test
  @Order(6)
  @Proves(
      "Missing files raise FileNotFoundException (read, status), exists is false, delete is false,"
          + " a missing directory lists empty.")
  public final void missingFileErrors() throws IOException {
    requirePresent(Capability.STORE_BASICS);
    FileIO store = openStore();
    Path missing = checkDirectory().child("never-written");
    assertThat(catchThrowable(() -> store.newInputStream(missing)))
        .as("newInputStream of a missing file")
        .isInstanceOf(FileNotFoundException.class);
    assertThat(catchThrowable(() -> store.getStatus(missing)))
        .as("getStatus of a missing file")
        .isInstanceOf(FileNotFoundException.class);
    assertThat(store.exists(missing)).isFalse();
    assertThat(store.delete(missing, false)).as("delete of a missing file").isFalse();
    assertThat(store.list(checkDirectory().child("no-such-dir")))
        .as("list of a missing directory")
        .isEmpty();
  }

  /**
   * A large object (64 MiB by default, {@value ConformanceSettings#LARGE_OBJECT_SIZE}) written in
   * odd-sized chunks reads back whole, so multi-part upload paths run.
   */
  @Test
  @Order(7)
  @Proves(
      "A large object (64 MiB by default) written in odd chunks reads back with the same length and"
          + " SHA-256.")
  public final void largeObjectRoundTrips() throws IOException {
    requirePresent(Capability.STORE_BASICS);
    FileIO store = openStore();
    Path file = checkDirectory().child("large-object");
    long size = settings().largeObjectBytes();
    byte[] chunk = randomBytes(1_048_573, 42);
    MessageDigest written = sha256();
    try (OutputStream out = store.newOutputStream(file, false)) {
      long left = size;
      long offset = 0;
      while (left > 0) {
        int n = (int) Math.min(left, chunk.length);
        chunk[0] = (byte) offset; // every chunk differs, so misplaced parts are caught
        out.write(chunk, 0, n);
        written.update(chunk, 0, n);
        left -= n;
        offset += n;
      }
    }
    assertThat(openStore().getStatus(file).length())
        .as("length of the large object")
        .isEqualTo(size);
    MessageDigest readBack = sha256();
    long total = 0;
    try (InputStream in = openStore().newInputStream(file)) {
      byte[] buffer = new byte[1 << 16];
      int n;
      while ((n = in.read(buffer)) >= 0) {
        readBack.update(buffer, 0, n);
        total += n;
      }
    }
    assertThat(total).as("bytes read back").isEqualTo(size);
    assertThat(readBack.digest())
        .as("SHA-256 of the large object read back")
        .isEqualTo(written.digest());
  }

  /** Names with spaces, unicode and '%' are stored, listed and read under exactly that name. */
  @Test
  @Order(8)
  @Proves(
      "Names with spaces, unicode and % are stored, listed and read under exactly that name, never"
          + " URL-decoded.")
  public final void namesWithSpacesUnicodeAndPercent() throws IOException {
    requirePresent(Capability.STORE_BASICS);
    FileIO store = openStore();
    Path dir = checkDirectory().child("odd names");
    String[] names = {"with space", "ünïcödé-数据-表", "percent%20not-decoded", "100%", "a+b=c&d"};
    for (int i = 0; i < names.length; i++) {
      write(store, dir.child(names[i]), names[i].getBytes(StandardCharsets.UTF_8), false);
    }
    FileIO other = openStore();
    for (String name : names) {
      assertThat(read(other, dir.child(name)))
          .as("content of '" + name + "'")
          .isEqualTo(name.getBytes(StandardCharsets.UTF_8));
    }
    assertThat(other.list(dir).stream().map(s -> s.path().name()).collect(Collectors.toList()))
        .as(listing(other, dir))
        .containsExactlyInAnyOrder(names);
    assertThat(other.exists(dir.child("percent not-decoded")))
        .as("'%20' must not be decoded to a space")
        .isFalse();
  }

  /**
   * Reading past the end: {@code read} answers -1 (again and again, also after seeking to the end),
   * and a positioned read that runs past the end raises {@link EOFException}.
   */
  @Test
  @Order(9)
  @Proves(
      "Reading past the end of a file answers -1 (repeatedly, also after seeking to the end), and a"
          + " positioned read past the end raises EOFException.")
  public final void readingPastTheEnd() throws IOException {
    requirePresent(Capability.STORE_BASICS);
    FileIO store = openStore();
    Path file = checkDirectory().child("short");
    byte[] content = randomBytes(100, 21);
    write(store, file, content, false);
    try (SeekableInputStream in = openStore().newInputStream(file)) {
      assertThat(in.readNBytes(200)).as("all there is").isEqualTo(content);
      assertThat(in.read()).as("read() at the end").isEqualTo(-1);
      assertThat(in.read(new byte[10], 0, 10)).as("read(buffer) at the end").isEqualTo(-1);
      assertThat(in.read()).as("read() at the end, again").isEqualTo(-1);
      in.seek(content.length);
      assertThat(in.read()).as("read() after seek(length)").isEqualTo(-1);
      in.seek(40);
      assertThat(in.read()).as("read() after seeking back").isEqualTo(content[40] & 0xff);
      assertThat(catchThrowable(() -> in.readFully(90, new byte[20], 0, 20)))
          .as("readFully(90, 20 bytes) of a 100-byte file")
          .isInstanceOf(EOFException.class);
    }
  }

  /** A zero-byte file exists, has length 0, reads as empty and is listed. */
  @Test
  @Order(10)
  @Proves(
      "A zero-byte file is a file: it exists, has length 0, reads as empty at once, and is listed"
          + " with size 0.")
  public final void zeroByteFile() throws IOException {
    requirePresent(Capability.STORE_BASICS);
    FileIO store = openStore();
    Path dir = checkDirectory().child("empty-file-dir");
    Path file = dir.child("empty");
    write(store, file, new byte[0], false);
    FileIO other = openStore();
    assertThat(other.exists(file)).as("exists of a zero-byte file").isTrue();
    FileStatus status = other.getStatus(file);
    assertThat(status.length()).as("length of a zero-byte file").isZero();
    assertThat(status.directory()).as("a zero-byte file is not a directory").isFalse();
    try (SeekableInputStream in = other.newInputStream(file)) {
      assertThat(in.read()).as("read() of a zero-byte file").isEqualTo(-1);
    }
    assertThat(other.list(dir))
        .as(listing(other, dir))
        .extracting(s -> s.path().name() + ":" + s.length() + ":" + s.directory())
        .containsExactly("empty:0:false");
    assertThat(catchThrowable(() -> write(store, file, new byte[0], false)))
        .as("overwrite=false on an existing zero-byte file")
        .isInstanceOf(FileAlreadyExistsException.class);
  }

  /** An empty directory and a missing one both list as empty; a listing is never null. */
  @Test
  @Order(11)
  @Proves(
      "An empty directory (made with mkdirs, or emptied by deleting its only file) and a missing"
          + " one list as empty, never null and never an error.")
  public final void listingOfEmptyAndMissingDirectories() throws IOException {
    requirePresent(Capability.STORE_BASICS);
    FileIO store = openStore();
    Path made = checkDirectory().child("made-empty");
    assertThat(store.mkdirs(made)).as("mkdirs").isTrue();
    assertThat(openStore().list(made)).as("list of an empty directory").isEmpty();
    Path emptied = checkDirectory().child("emptied");
    write(store, emptied.child("only"), randomBytes(10, 22), false);
    assertThat(store.delete(emptied.child("only"), false)).isTrue();
    assertThat(openStore().list(emptied)).as("list of a directory emptied by a delete").isEmpty();
    assertThat(openStore().list(checkDirectory().child("missing").child("deeper")))
        .as("list of a missing directory under a missing parent")
        .isEmpty();
  }

  /** Deleting what is not there reports false and changes nothing, recursive or not. */
  @Test
  @Order(12)
  @Proves(
      "Deleting a missing file or directory reports false, recursive or not, also under a missing"
          + " parent, and leaves its siblings alone.")
  public final void deletingWhatIsMissing() throws IOException {
    requirePresent(Capability.STORE_BASICS);
    FileIO store = openStore();
    Path dir = checkDirectory().child("delete-missing");
    Path sibling = dir.child("sibling");
    write(store, sibling, randomBytes(10, 23), false);
    assertThat(store.delete(dir.child("missing"), false)).as("delete(missing, false)").isFalse();
    assertThat(store.delete(dir.child("missing"), true)).as("delete(missing, true)").isFalse();
    assertThat(store.delete(checkDirectory().child("no-parent").child("missing"), false))
        .as("delete of a file under a missing parent")
        .isFalse();
    assertThat(store.delete(checkDirectory().child("no-such-dir"), true))
        .as("recursive delete of a missing directory")
        .isFalse();
    assertThat(read(openStore(), sibling)).as("the sibling is untouched").hasSize(10);
  }

  /** A directory exists, has a directory status, and cannot be opened for reading. */
  @Test
  @Order(13)
  @Proves(
      "exists is true for a directory (one that holds a file), getStatus says directory, and"
          + " opening it for reading raises FileNotFoundException.")
  public final void existsOnADirectory() throws IOException {
    requirePresent(Capability.STORE_BASICS);
    FileIO store = openStore();
    Path dir = checkDirectory().child("a-directory");
    write(store, dir.child("inside"), randomBytes(10, 24), false);
    FileIO other = openStore();
    assertThat(other.exists(dir)).as("exists of a directory").isTrue();
    assertThat(other.getStatus(dir).directory()).as("getStatus of a directory").isTrue();
    assertThat(catchThrowable(() -> other.newInputStream(dir)))
        .as("newInputStream of a directory")
        .isInstanceOf(FileNotFoundException.class);
  }

  static void write(FileIO store, Path file, byte[] content, boolean overwrite) throws IOException {
    try (OutputStream out = store.newOutputStream(file, overwrite)) {
      out.write(content);
    }
  }

  static byte[] read(FileIO store, Path file) throws IOException {
    try (InputStream in = store.newInputStream(file)) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      in.transferTo(out);
      return out.toByteArray();
    }
  }

  static byte[] randomBytes(int size, long seed) {
    byte[] bytes = new byte[size];
    new SplittableRandom(seed).nextBytes(bytes);
    return bytes;
  }

  private static byte[] slice(byte[] bytes, int offset, int length) {
    byte[] out = new byte[length];
    System.arraycopy(bytes, offset, out, 0, length);
    return out;
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
