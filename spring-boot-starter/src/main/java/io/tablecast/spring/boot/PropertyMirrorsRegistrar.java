package io.tablecast.spring.boot;

import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import java.util.Map;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.ResolvableType;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Declares a {@link TableMirror} bean per {@code tablecast.client.mirrors.NAME}, named NAME and
 * typed {@code TableMirror<Type>} (or {@code TableMirror<Map<String, Object>>} without a {@code
 * type}), so that it is injected by type or by name like any bean. Each is {@code
 * client.mirror(table, type)} of the {@link TablecastClient} bean.
 */
final class PropertyMirrorsRegistrar implements ImportBeanDefinitionRegistrar {
  static final String PROPERTY = "tablecast.client.mirrors";

  private final Environment environment;
  private final BeanFactory beanFactory;

  PropertyMirrorsRegistrar(Environment environment, BeanFactory beanFactory) {
    this.environment = environment;
    this.beanFactory = beanFactory;
  }

  @Override
  public void registerBeanDefinitions(
      AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
    Map<String, TablecastClientProperties.Mirror> mirrors =
        Binder.get(environment)
            .bind(PROPERTY, Bindable.mapOf(String.class, TablecastClientProperties.Mirror.class))
            .orElse(Map.of());
    mirrors.forEach(
        (name, mirror) -> registry.registerBeanDefinition(name, definition(name, mirror)));
  }

  private RootBeanDefinition definition(String name, TablecastClientProperties.Mirror mirror) {
    String table = mirror.getTable();
    if (table == null || table.isBlank()) {
      throw new IllegalArgumentException(
          PROPERTY + "." + name + ".table must name the cached table (schema.table)");
    }
    Class<?> type = mirror.getType();
    ResolvableType rowType =
        type != null
            ? ResolvableType.forClass(type)
            : ResolvableType.forClassWithGenerics(Map.class, String.class, Object.class);
    RootBeanDefinition definition = new RootBeanDefinition(TableMirror.class);
    definition.setTargetType(ResolvableType.forClassWithGenerics(TableMirror.class, rowType));
    definition.setInstanceSupplier(
        () -> {
          TablecastClient client = beanFactory.getBean(TablecastClient.class);
          return type != null ? client.mirror(table, type) : client.mirror(table);
        });
    definition.setDescription("Tablecast mirror of " + table + " (" + PROPERTY + "." + name + ")");
    return definition;
  }
}
