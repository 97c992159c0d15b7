package dev.lockstep.lock.zookeeper;

import dev.lockstep.lock.CatalogLockFactory;
import dev.lockstep.lock.LockService;
import dev.lockstep.options.OptionSet;
import java.util.Map;

/**
 * {@code lock.type=zookeeper}: a {@link ZooKeeperLockService} on the process's shared Curator
 * client for {@code lock.zookeeper.connect-string}. Options: {@link ZooKeeperLockOptions}.
 */
public final class ZooKeeperLockFactory implements CatalogLockFactory {

  public static final String IDENTIFIER = "zookeeper";

  @Override
  public String identifier() {
    return IDENTIFIER;
  }

  @Override
  public OptionSet options() {
    return ZooKeeperLockOptions.OPTIONS;
  }

  /**
   * @throws IllegalArgumentException when {@code lock.zookeeper.connect-string} is missing or an
   *     option is invalid, naming the key and the fix; an unknown {@code lock.zookeeper.*} key is
   *     refused with the nearest known key
   */
  @Override
  public LockService create(Map<String, String> options) {
    return new ZooKeeperLockService(ZooKeeperLockOptions.from(options));
  }
}
