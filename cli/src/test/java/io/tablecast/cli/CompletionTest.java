package io.tablecast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tablecast generate-completion} prints a bash completion script (picocli's AutoComplete)
 * that completes commands, options and the values of --format, run here in a real bash.
 */
class CompletionTest {

  @TempDir Path dir;

  @Test
  void theGeneratedScriptCompletesCommandsOptionsAndFormats() throws Exception {
    UnknownCommandTest.Run generated = UnknownCommandTest.run("generate-completion");
    assertThat(generated.exitCode()).as(generated.err()).isZero();
    Path script = dir.resolve("tablecast.bash");
    Files.writeString(script, generated.out());

    assertThat(complete(script, "tablecast du")).isEqualTo("dump");
    assertThat(complete(script, "tablecast dump --for")).isEqualTo("--format");
    assertThat(complete(script, "tablecast dump --format ")).isEqualTo("json csv table");
    assertThat(complete(script, "tablecast ser")).isEqualTo("serve");
  }

  /** What bash offers for {@code line} (the cursor at its end), space-separated. */
  private String complete(Path script, String line) throws Exception {
    String words = line.endsWith(" ") ? line + "''" : line;
    String bash =
        "source '"
            + script
            + "'\n"
            + "COMP_LINE='"
            + line
            + "'; COMP_POINT=${#COMP_LINE}\n"
            + "COMP_WORDS=("
            + words
            + "); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))\n"
            + "_complete_tablecast\n"
            + "printf '%s\\n' \"${COMPREPLY[@]}\"\n";
    // stderr apart: outside a real completion, picocli's script calls compopt, which complains
    Process p =
        new ProcessBuilder("bash", "-c", bash)
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    return String.join(" ", out.strip().lines().map(String::strip).toList());
  }
}
