/**
 * Every HTTP route the ingress's controllers declare, read from Nest's own metadata (path, method)
 * and Fastify route config (the admin access a handler declared with @Access): a route added
 * anywhere shows up here without anyone listing it.
 */
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import type { INestApplication } from '@nestjs/common';
import { FASTIFY_ROUTE_CONFIG_METADATA } from '@nestjs/platform-fastify/constants';
import type { AdminAccess } from '../../apps/ingress/src/access/admin-access.config';

export interface DeclaredRoute {
  readonly method: string;
  readonly path: string;
  /** What the handler declared with @Access; undefined: nothing (such an admin route needs admin, and fails the role table). */
  readonly access: AdminAccess | undefined;
}

/** Nest keeps a path as a string or an array of strings (several paths for one handler: the first is taken). */
const first = (path: unknown): string => (Array.isArray(path) ? String(path[0] ?? '') : typeof path === 'string' ? path : '');

const join = (...parts: unknown[]): string =>
  `/${parts
    .flatMap((part) => first(part).split('/'))
    .filter((part) => part !== '')
    .join('/')}`;

export function declaredRoutes(app: INestApplication): DeclaredRoute[] {
  const routes: DeclaredRoute[] = [];
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const type = wrapper.metatype as (new (...args: never[]) => unknown) | null;
      if (!type) continue;
      const base: unknown = Reflect.getMetadata(PATH_METADATA, type);
      for (const name of Object.getOwnPropertyNames(type.prototype)) {
        const handler = (type.prototype as Record<string, unknown>)[name];
        if (name === 'constructor' || typeof handler !== 'function') continue;
        const path: unknown = Reflect.getMetadata(PATH_METADATA, handler);
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        if (path === undefined || method === undefined) continue;
        const config = Reflect.getMetadata(FASTIFY_ROUTE_CONFIG_METADATA, handler) as { adminAccess?: AdminAccess } | undefined;
        routes.push({ method: RequestMethod[method], path: join(base, path), access: config?.adminAccess });
      }
    }
  }
  return routes;
}
