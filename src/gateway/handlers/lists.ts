// tools/list, prompts/list, resources/list, resources/templates/list: pages of the merged view, the
// same objects for every caller of a view (catalogue/view-pages.ts).
import type { MethodHandler } from './handler-context.js';
import { ViewPages } from '../catalogue/view-pages.js';

const pages = new ViewPages();

export const listTools: MethodHandler = async (params, { view, pageSize }) => pages.page('tools', view.tools, params.cursor, pageSize);

export const listPrompts: MethodHandler = async (params, { view, pageSize }) => pages.page('prompts', view.prompts, params.cursor, pageSize);

export const listResources: MethodHandler = async (params, { view, pageSize }) => pages.page('resources', view.resources, params.cursor, pageSize);

export const listResourceTemplates: MethodHandler = async (params, { view, pageSize }) =>
  pages.page('resourceTemplates', view.resourceTemplates, params.cursor, pageSize);
