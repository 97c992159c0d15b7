package dev.lockstep.cli;

import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.FileIODiscovery;
import dev.lockstep.fs.Path;
import java.io.IOException;

/** The stress table and the store it lives on, closed together. */
record StressTable(FileIO fileIO, FileSystemCatalog catalog, FileStoreTable table)
    implements AutoCloseable {

  static StressTable open(StressConfig config) throws IOException {
    FileIO io = FileIODiscovery.open(Path.of(config.warehouse()), config.options());
    try {
      FileSystemCatalog catalog =
          new FileSystemCatalog(io, Path.of(config.warehouse()), config.options());
      return new StressTable(
          io, catalog, catalog.getTable(StressWorker.identifier(config.table())));
    } catch (IOException | RuntimeException e) {
      io.close();
      throw e;
    }
  }

  @Override
  public void close() throws IOException {
    try {
      table.close();
    } finally {
      fileIO.close();
    }
  }
}
