package dev.lockstep.engine.schema;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.FileStatus;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.SupportsAtomicCreate;
import dev.lockstep.fs.SupportsAtomicRename;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.FileAlreadyExistsException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The schema versions of one table: {@code <table>/schema/schema-<id>}, JSON.
 *
 * <p>A version is created atomically where the store allows it: atomic create, else a temporary
 * file renamed without replace, else a create with {@code overwrite=false} (not atomic against a
 * concurrent creator; such stores need a lock for commits anyway). Two creators racing for the same
 * id: exactly one wins where the store is atomic, the other gets {@link
 * FileAlreadyExistsException}.
 */
public final class SchemaManager {

  static final String PREFIX = "schema-";
  static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private final FileIO fileIO;
  private final Path directory;

  public SchemaManager(FileIO fileIO, Path tablePath) {
    this.fileIO = fileIO;
    this.directory = tablePath.child("schema");
  }

  public Path schemaPath(long id) {
    return directory.child(PREFIX + id);
  }

  /**
   * Writes version {@code schema.id()}.
   *
   * @throws FileAlreadyExistsException when that version exists; nothing was changed
   */
  public void create(TableSchema schema) throws IOException {
    createAtomically(fileIO, schemaPath(schema.id()), JSON.writeValueAsBytes(schema));
  }

  /** Reads one version. @throws java.io.FileNotFoundException when it does not exist */
  public TableSchema read(long id) throws IOException {
    byte[] bytes;
    try (InputStream in = fileIO.newInputStream(schemaPath(id))) {
      bytes = in.readAllBytes();
    }
    try {
      return JSON.readValue(bytes, TableSchema.class);
    } catch (IOException | RuntimeException e) {
      throw dev.lockstep.engine.snapshot.DamagedFileException.of(
          "schema", schemaPath(id), bytes.length, e);
    }
  }

  /** The ids of every version, ascending. */
  public List<Long> listIds() throws IOException {
    List<Long> ids = new ArrayList<>();
    for (FileStatus status : fileIO.list(directory)) {
      String name = status.path().name();
      if (name.startsWith(PREFIX) && name.substring(PREFIX.length()).matches("\\d+")) {
        ids.add(Long.parseLong(name.substring(PREFIX.length())));
      }
    }
    ids.sort(null);
    return ids;
  }

  /** The newest version, or empty when the table does not exist. */
  public Optional<TableSchema> latest() throws IOException {
    List<Long> ids = listIds();
    return ids.isEmpty() ? Optional.empty() : Optional.of(read(ids.get(ids.size() - 1)));
  }

  /**
   * Publishes {@code content} at {@code path} if nothing is there, as atomically as the store
   * allows (see the class javadoc).
   *
   * @throws FileAlreadyExistsException when something is there
   */
  public static void createAtomically(FileIO fileIO, Path path, byte[] content) throws IOException {
    if (fileIO instanceof SupportsAtomicCreate) {
      ((SupportsAtomicCreate) fileIO).createAtomically(path, content);
      return;
    }
    if (fileIO instanceof SupportsAtomicRename) {
      Path temp = path.parent().child("." + path.name() + "." + UUID.randomUUID() + ".tmp");
      try (OutputStream out = fileIO.newOutputStream(temp, false)) {
        out.write(content);
      }
      try {
        ((SupportsAtomicRename) fileIO).renameAtomically(temp, path);
      } finally {
        fileIO.delete(temp, false);
      }
      return;
    }
    try (OutputStream out = fileIO.newOutputStream(path, false)) {
      out.write(content);
    }
  }
}
