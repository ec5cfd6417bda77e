package io.tablecast.server.config;

import com.fasterxml.jackson.annotation.JacksonAnnotationsInside;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks an {@code int} or {@code long} setting that is a byte count: written as a plain number or
 * with a binary unit ({@code 512KiB}, {@code 64MiB}, {@code 1GiB}, see {@link Units#parseSize}).
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({
  ElementType.FIELD,
  ElementType.METHOD,
  ElementType.PARAMETER,
  ElementType.RECORD_COMPONENT
})
@JacksonAnnotationsInside
@JsonDeserialize(using = ConfigMapper.ByteSizeDeserializer.class)
public @interface ByteSize {}
