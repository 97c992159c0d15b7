package dev.lockstep.commit;

import dev.lockstep.fs.Path;
import dev.lockstep.fs.UncertainWriteException;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;

/**
 * One way of publishing a snapshot file if and only if it is absent: the strategy chosen by {@code
 * commit.strategy}. Outcomes, as for {@link dev.lockstep.fs.SupportsAtomicCreate}:
 *
 * <ul>
 *   <li>return: {@code target} holds our content;
 *   <li>{@link FileAlreadyExistsException}: someone else's snapshot is there, ours was not
 *       published;
 *   <li>{@link UncertainWriteException}: ours may or may not be there;
 *   <li>any other {@link IOException}: ours was not published, as far as the publisher knows (the
 *       committer reads back all the same).
 * </ul>
 */
public interface SnapshotPublisher {

  /** The strategy this publisher implements, as named in reports. */
  String describe();

  /**
   * Publishes {@code content} at {@code target} if nothing is there; outcomes as in the class
   * javadoc.
   *
   * @throws InterruptedException only while nothing has been written yet (waiting for a lock); an
   *     interrupt while a write is in flight is reported as {@link UncertainWriteException}
   */
  void publish(Path target, byte[] content) throws IOException, InterruptedException;
}
