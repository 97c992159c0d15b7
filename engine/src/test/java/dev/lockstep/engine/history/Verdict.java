package dev.lockstep.engine.history;

import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.manifest.ManifestEntry;
import dev.lockstep.engine.manifest.ManifestFileMeta;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/** The checks of {@link HistoryChecker} on the table after a run; see its class javadoc. */
public final class Verdict {

  private Verdict() {}

  /**
   * @param users every committer that ran, each committing identifiers 1..commits
   * @return the broken invariants, empty when everything holds
   */
  public static List<String> check(
      Path warehouse,
      HistoryChecker.Config config,
      List<String> users,
      List<HistoryChecker.Ack> acks,
      HistoryChecker.Stats stats)
      throws IOException {
    List<String> problems = new ArrayList<>(stats.wentBack);
    Map<String, Integer> expected = new TreeMap<>();
    for (String user : users) {
      for (long c = 1; c <= config.commits(); c++) {
        expected.put(user + "/" + c, config.rows());
      }
    }
    Set<String> acknowledged = new HashSet<>();
    Map<Long, HistoryChecker.Ack> byId = new HashMap<>();
    for (HistoryChecker.Ack ack : acks) {
      if (!acknowledged.add(ack.user() + "/" + ack.identifier())) {
        problems.add("acknowledged twice: " + ack);
      }
      if (ack.snapshotId() > 0) {
        HistoryChecker.Ack other = byId.put(ack.snapshotId(), ack);
        if (other != null) {
          problems.add(
              "two acknowledged commits got snapshot "
                  + ack.snapshotId()
                  + ": "
                  + other
                  + " and "
                  + ack);
        }
      }
    }
    if (!acknowledged.equals(expected.keySet())) {
      problems.add("acknowledged " + acknowledged.size() + " of " + expected.size() + " commits");
    }
    try (FileStoreTable table =
        new FileSystemCatalog(
                new LocalFileIO(), warehouse, HistoryChecker.catalogOptions(config.strategy()))
            .getTable(HistoryChecker.TABLE)) {
      Map<String, Integer> rows = new TreeMap<>();
      for (GenericRow row : table.newRead().readAll(table.newScan().plan())) {
        rows.merge(row.get(0) + "/" + row.get(1), 1, Integer::sum);
      }
      if (!rows.equals(expected)) {
        Map<String, String> diff = new TreeMap<>();
        Set<String> keys = new HashSet<>(rows.keySet());
        keys.addAll(expected.keySet());
        for (String key : keys) {
          if (!java.util.Objects.equals(rows.get(key), expected.get(key))) {
            diff.put(key, rows.get(key) + " rows, expected " + expected.get(key));
          }
        }
        problems.add("rows per acknowledged commit differ (lost or doubled): " + diff);
      }
      checkHistory(table, config, acks, problems);
    }
    return problems;
  }

  private static void checkHistory(
      FileStoreTable table,
      HistoryChecker.Config config,
      List<HistoryChecker.Ack> acks,
      List<String> problems)
      throws IOException {
    List<Long> ids = table.snapshotManager().log().listIds();
    if (ids.isEmpty()) {
      problems.add("no snapshots");
      return;
    }
    long latest = ids.get(ids.size() - 1);
    if (table.snapshotManager().latestId().orElse(-1) != latest) {
      problems.add(
          "latestId " + table.snapshotManager().latestId() + " is not the newest listed " + latest);
    }
    // The history: down from the newest while each snapshot was built on the one before.
    List<Snapshot> chain = new ArrayList<>();
    Snapshot s = table.snapshotManager().readUncached(latest).orElseThrow();
    chain.add(s);
    while (s.id() > 1) {
      Snapshot previous = table.snapshotManager().readUncached(s.id() - 1).orElse(null);
      if (previous == null || !previous.isParentOf(s)) {
        break;
      }
      s = previous;
      chain.add(s);
    }
    long first = s.id();
    List<Long> strays = new ArrayList<>();
    for (long id : ids) {
      if (id > first && id <= latest) {
        continue;
      }
      if (id > latest || id >= first) {
        continue;
      }
      // A snapshot below the history that is not part of it: a late write (it landed after its
      // committer gave up with an unknown outcome) under an expired id. Allowed (engine README,
      // "the real window" (d)) as long as nobody was told it committed and nothing reads it.
      strays.add(id);
    }
    for (HistoryChecker.Ack ack : acks) {
      if (!strays.contains(ack.snapshotId())) {
        continue;
      }
      // An acknowledged id can hold a stray file for two reasons. (1) The stray is this very
      // commit: it was acknowledged at a file no reader sees (a broken acknowledgement). (2) The
      // stray is another commit's late write: the acknowledged commit was the id's first holder,
      // in the history until it expired, and the late write published the expired id again; its
      // committer was never told it committed (two acknowledgements of one id are flagged above,
      // and the rows check proves both commits' rows are in the table exactly once).
      Snapshot stray = table.snapshotManager().readUncached(ack.snapshotId()).orElse(null);
      if (stray != null
          && stray.commitUser().equals(ack.user())
          && stray.commitIdentifier() == ack.identifier()) {
        problems.add(
            "acknowledged "
                + ack
                + " is a snapshot below the history (commitId "
                + stray.commitId()
                + ", parent "
                + stray.parentCommitId()
                + "; the history starts at "
                + first
                + ")");
      } else {
        System.out.println(
            "acknowledged "
                + ack
                + " expired; its id was published again by a"
                + " late write of "
                + (stray == null
                    ? "a commit withdrawn since"
                    : stray.commitUser() + "/" + stray.commitIdentifier()));
      }
    }
    if (!strays.isEmpty()) {
      System.out.println("snapshots left below the history by late writes: " + strays);
    }
    if (ids.stream().filter(id -> id >= first).count() != latest - first + 1) {
      problems.add("the history " + first + ".." + latest + " has gaps: " + ids);
    }
    Set<String> seen = new HashSet<>();
    Path manifestDir = table.path().child("manifest");
    for (Snapshot snapshot : chain) {
      String key =
          snapshot.commitUser() + "/" + snapshot.commitIdentifier() + "/" + snapshot.commitKind();
      if (!seen.add(key)) {
        problems.add(
            "(user, identifier, kind) " + key + " twice in the history, again in " + snapshot.id());
      }
      List<String> lists = new ArrayList<>();
      lists.add(snapshot.baseManifestList());
      snapshot.priorDeltas().forEach(p -> lists.add(p.deltaManifestList()));
      lists.add(snapshot.deltaManifestList());
      for (String list : lists) {
        if (!table.fileIO().exists(manifestDir.child(list))) {
          problems.add("snapshot " + snapshot.id() + " names missing manifest list " + list);
          continue;
        }
        for (ManifestFileMeta m : table.manifestList().read(list)) {
          if (!table.fileIO().exists(manifestDir.child(m.fileName()))) {
            problems.add("snapshot " + snapshot.id() + " names missing manifest " + m.fileName());
          }
        }
      }
      try {
        for (ManifestEntry e : table.store().liveFiles(snapshot).values()) {
          if (!table
              .fileIO()
              .exists(table.bucketPath(e.partition(), e.bucket()).child(e.file().fileName()))) {
            problems.add(
                "snapshot "
                    + snapshot.id()
                    + " references missing data file "
                    + e.file().fileName());
          }
        }
      } catch (IOException e) {
        problems.add("snapshot " + snapshot.id() + " cannot be read: " + e);
      }
    }
    if (config.retainMax() == 0) {
      if (first != 1) {
        problems.add("without expiration the history starts at " + first + ", not 1");
      }
      for (HistoryChecker.Ack ack : acks) {
        if (!seen.contains(ack.user() + "/" + ack.identifier() + "/APPEND")) {
          problems.add("acknowledged " + ack + " is not in the history");
        }
      }
      if (seen.size() != acks.size()) {
        problems.add(
            "the history holds " + seen.size() + " commits, " + acks.size() + " were acknowledged");
      }
    }
  }
}
