package io.tablecast.server.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablecast.server.ServerConfig;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/CONFIGURATION.md's {@code source.password_file}: the password read anew for each connection,
 * one line end after it not part of it, and the settings it cannot go with refused at start.
 */
class PasswordFileTest {
  private static final String URL = "jdbc:postgresql://db:5432/app?user=tablecast";

  @TempDir Path dir;

  private static SourceConfig withFile(String url, String user, String password, Path file) {
    return new SourceConfig(
        url,
        user,
        password,
        true,
        null,
        null,
        null,
        null,
        List.of(CachedTable.of("t", ColumnChoice.ALL)),
        null,
        null,
        null,
        file);
  }

  @Test
  void thePasswordIsReadAnewForEachConnectionWithoutTheLineEndAfterIt() throws Exception {
    Path file = Files.writeString(dir.resolve("password"), "first secret\n");
    SourceConfig config = withFile(URL, null, null, file);
    assertThat(config.password()).isEqualTo("first secret");

    Files.writeString(file, "rotated \r\n"); // a space of its own is kept
    assertThat(config.password()).isEqualTo("rotated ");
    Files.writeString(file, "no line end");
    assertThat(config.password()).isEqualTo("no line end");
    assertThat(config.toString()).doesNotContain("no line end");

    Files.delete(file);
    assertThatThrownBy(config::password)
        .isInstanceOf(UncheckedIOException.class)
        .hasMessageStartingWith("cannot read source.password_file " + file);
  }

  @Test
  void settingsItCannotGoWithAreRefusedNamingThem() throws Exception {
    Path file = Files.writeString(dir.resolve("password"), "secret\n");
    assertThatThrownBy(() -> withFile(URL, null, null, dir.resolve("missing")))
        .hasMessage(
            "source.password_file must be a readable file, was '" + dir.resolve("missing") + "'");
    assertThatThrownBy(() -> withFile(URL, null, null, dir))
        .hasMessageStartingWith("source.password_file must be a readable file");
    assertThatThrownBy(() -> withFile(URL, null, "other", file))
        .hasMessage(
            "source.password and source.password_file are two ways to give the password; set one");
    assertThatThrownBy(() -> withFile(URL + "&password=x", null, null, file))
        .hasMessageContaining("source.jdbc_url has a password too");
    assertThatThrownBy(() -> withFile("jdbc:postgresql://db:5432/app", null, null, file))
        .hasMessageStartingWith("source.password_file needs the user it is the password of");
    assertThat(withFile("jdbc:postgresql://db:5432/app", "tablecast", null, file).password())
        .isEqualTo("secret");
  }

  @Test
  void theFileIsNamedInTheYamlOrTheEnvironment() throws Exception {
    Path file = Files.writeString(dir.resolve("password"), "from the file\n");
    Path yaml =
        Files.writeString(
            dir.resolve("tablecast.yaml"),
            "source:\n  jdbc_url: "
                + URL
                + "\n  password_file: "
                + file
                + "\ncached_tables: [t]\n");
    assertThat(ServerConfig.load(yaml, Map.of()).source().password()).isEqualTo("from the file");

    Path other = Files.writeString(dir.resolve("other"), "from the variable\n");
    Path plain =
        Files.writeString(
            dir.resolve("plain.yaml"), "source:\n  jdbc_url: " + URL + "\ncached_tables: [t]\n");
    SourceConfig source =
        ServerConfig.load(plain, Map.of("TABLECAST_DB_PASSWORD_FILE", other.toString())).source();
    assertThat(source.passwordFile()).isEqualTo(other);
    assertThat(source.password()).isEqualTo("from the variable");
  }
}
