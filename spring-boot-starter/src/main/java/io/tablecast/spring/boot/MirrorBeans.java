package io.tablecast.spring.boot;

import io.tablecast.client.TableMirror;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.beans.factory.ListableBeanFactory;

/**
 * The application's {@link TableMirror} beans, declared in properties or as {@code @Bean}s, by bean
 * name: what readiness waits for and what health and metrics report.
 */
final class MirrorBeans {
  private final ListableBeanFactory beans;

  MirrorBeans(ListableBeanFactory beans) {
    this.beans = beans;
  }

  /** Every mirror bean by name, in registration order. */
  Map<String, TableMirror<?>> byName() {
    Map<String, TableMirror<?>> mirrors = new LinkedHashMap<>();
    beans.getBeansOfType(TableMirror.class).forEach(mirrors::put);
    return mirrors;
  }
}
