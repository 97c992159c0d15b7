package dev.lockstep.fs.hdfs;

import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.FileStatus;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.SeekableInputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.FileAlreadyExistsException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.PathIsNotEmptyDirectoryException;

/**
 * A store on any Hadoop {@link FileSystem}, with no atomic capability declared. {@link HdfsFileIO}
 * adds the atomic rename that HDFS guarantees.
 *
 * <p>Unlike object stores, HDFS shows a file being written to readers before it is closed. Lockstep
 * writes data files and manifests under unique names and publishes snapshots by rename, so no
 * reader looks at a file that is still being written.
 */
public class HadoopFileIO implements FileIO {

  private final FileSystem fileSystem;
  private final String description;

  HadoopFileIO(FileSystem fileSystem, String description) {
    this.fileSystem = fileSystem;
    this.description = description;
  }

  /** The Hadoop filesystem behind this store. */
  public FileSystem fileSystem() {
    return fileSystem;
  }

  static org.apache.hadoop.fs.Path toHadoop(Path path) {
    // Path keeps the raw string; Hadoop's single-argument constructor parses scheme and authority
    // and
    // keeps the rest verbatim (spaces, unicode and '%' included).
    return new org.apache.hadoop.fs.Path(path.toString());
  }

  @Override
  public SeekableInputStream newInputStream(Path path) throws IOException {
    try {
      return new HadoopInputStream(fileSystem.open(toHadoop(path)));
    } catch (FileNotFoundException e) {
      throw e;
    } catch (IOException e) {
      if (isDirectory(path)) {
        throw new FileNotFoundException(path + " is a directory, not a file");
      }
      throw e;
    }
  }

  @Override
  public OutputStream newOutputStream(Path path, boolean overwrite) throws IOException {
    try {
      return fileSystem.create(toHadoop(path), overwrite);
    } catch (org.apache.hadoop.fs.FileAlreadyExistsException e) {
      FileAlreadyExistsException translated =
          new FileAlreadyExistsException(
              path.toString(), null, "the file exists and overwrite=false");
      translated.initCause(e);
      throw translated;
    } catch (org.apache.hadoop.ipc.RemoteException e) {
      IOException unwrapped =
          e.unwrapRemoteException(org.apache.hadoop.fs.FileAlreadyExistsException.class);
      if (unwrapped instanceof org.apache.hadoop.fs.FileAlreadyExistsException) {
        FileAlreadyExistsException translated =
            new FileAlreadyExistsException(
                path.toString(), null, "the file exists and overwrite=false");
        translated.initCause(unwrapped);
        throw translated;
      }
      throw unwrapped;
    }
  }

  @Override
  public FileStatus getStatus(Path path) throws IOException {
    org.apache.hadoop.fs.FileStatus status = fileSystem.getFileStatus(toHadoop(path));
    return new FileStatus(
        path,
        status.isDirectory() ? 0 : status.getLen(),
        status.isDirectory(),
        status.getModificationTime());
  }

  @Override
  public boolean exists(Path path) throws IOException {
    return fileSystem.exists(toHadoop(path));
  }

  private boolean isDirectory(Path path) {
    try {
      return fileSystem.getFileStatus(toHadoop(path)).isDirectory();
    } catch (IOException e) {
      return false;
    }
  }

  @Override
  public List<FileStatus> list(Path directory) throws IOException {
    org.apache.hadoop.fs.FileStatus[] children;
    try {
      children = fileSystem.listStatus(toHadoop(directory));
    } catch (FileNotFoundException e) {
      return List.of();
    }
    List<FileStatus> out = new ArrayList<>(children.length);
    for (org.apache.hadoop.fs.FileStatus child : children) {
      if (!child.isDirectory() && child.getPath().getName().isEmpty()) {
        continue;
      }
      if (child.isFile()
          && children.length == 1
          && child.getPath().toUri().getPath().equals(toHadoop(directory).toUri().getPath())) {
        throw new IOException("Cannot list " + directory + ": it is a file");
      }
      out.add(
          new FileStatus(
              directory.child(child.getPath().getName()),
              child.isDirectory() ? 0 : child.getLen(),
              child.isDirectory(),
              child.getModificationTime()));
    }
    return out;
  }

  @Override
  public boolean delete(Path path, boolean recursive) throws IOException {
    try {
      return fileSystem.delete(toHadoop(path), recursive);
    } catch (PathIsNotEmptyDirectoryException e) {
      throw new IOException(
          "Cannot delete " + path + ": the directory is not empty and" + " recursive=false", e);
    } catch (org.apache.hadoop.ipc.RemoteException e) {
      throw e.unwrapRemoteException();
    }
  }

  @Override
  public boolean mkdirs(Path path) throws IOException {
    return fileSystem.mkdirs(toHadoop(path));
  }

  @Override
  public void close() throws IOException {
    fileSystem.close();
  }

  @Override
  public String toString() {
    return description;
  }

  /** Adapts Hadoop's seekable stream; positioned reads do not move the stream. */
  private static final class HadoopInputStream extends SeekableInputStream {
    private final FSDataInputStream in;

    HadoopInputStream(FSDataInputStream in) {
      this.in = in;
    }

    @Override
    public void seek(long position) throws IOException {
      in.seek(position);
    }

    @Override
    public long position() throws IOException {
      return in.getPos();
    }

    @Override
    public int read() throws IOException {
      return in.read();
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      return in.read(b, off, len);
    }

    @Override
    public void readFully(long position, byte[] buffer, int offset, int length) throws IOException {
      in.readFully(position, buffer, offset, length);
    }

    @Override
    public long skip(long n) throws IOException {
      return in.skip(n);
    }

    @Override
    public int available() throws IOException {
      return in.available();
    }

    @Override
    public void close() throws IOException {
      in.close();
    }
  }
}
