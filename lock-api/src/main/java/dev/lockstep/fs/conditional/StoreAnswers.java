package dev.lockstep.fs.conditional;

import dev.lockstep.fs.Path;
import java.io.IOException;

/**
 * The per-store primitive of {@link ConditionalPublisher}: how the store's client reports a failed
 * request. Everything else (the retry loop, the read-back, the deadline) is the publisher's.
 */
public interface StoreAnswers {

  /**
   * What a failed request means. Must recognise the store's "already exists" answer to a
   * conditional create ({@link Answer.Kind#ALREADY_EXISTS}) and tell whether a failure may have
   * landed.
   */
  Answer classify(RuntimeException failure);

  /**
   * The store's exception for a failure that is neither a conflict nor uncertain; names the store
   * address and the option to fix where it can.
   *
   * @param action the request, for example {@code PutObject}
   */
  IOException failure(RuntimeException failure, String action, Path path);

  /**
   * The store's words for its "already exists" answer, e.g. {@code S3 answered 412 to
   * If-None-Match: *}.
   */
  String alreadyExistsAnswer();
}
