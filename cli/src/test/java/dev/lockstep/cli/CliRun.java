package dev.lockstep.cli;

import java.io.PrintWriter;
import java.io.StringWriter;

/** One run of the command line, captured. */
record CliRun(int exitCode, String out, String err) {

  static CliRun of(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = LockstepCli.execute(args, new PrintWriter(out, true), new PrintWriter(err, true));
    return new CliRun(code, out.toString(), err.toString());
  }
}
