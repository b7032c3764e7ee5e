// tools/list, prompts/list, resources/list, resources/templates/list: pages of the merged view.
import type { MethodHandler } from '../handler-context.js';
import { paginate } from '../pagination.js';

export const listTools: MethodHandler = async (params, { view, pageSize }) => {
  const page = paginate(view.tools, 'tools', params.cursor, pageSize);
  return { tools: page.items.map((entry) => entry.item), ...(page.nextCursor && { nextCursor: page.nextCursor }) };
};

export const listPrompts: MethodHandler = async (params, { view, pageSize }) => {
  const page = paginate(view.prompts, 'prompts', params.cursor, pageSize);
  return { prompts: page.items.map((entry) => entry.item), ...(page.nextCursor && { nextCursor: page.nextCursor }) };
};

export const listResources: MethodHandler = async (params, { view, pageSize }) => {
  const page = paginate(view.resources, 'resources', params.cursor, pageSize);
  return { resources: page.items.map((entry) => entry.item), ...(page.nextCursor && { nextCursor: page.nextCursor }) };
};

export const listResourceTemplates: MethodHandler = async (params, { view, pageSize }) => {
  const page = paginate(view.resourceTemplates, 'resourceTemplates', params.cursor, pageSize);
  return {
    resourceTemplates: page.items.map((entry) => entry.item),
    ...(page.nextCursor && { nextCursor: page.nextCursor }),
  };
};
