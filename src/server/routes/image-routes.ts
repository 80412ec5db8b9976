import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { IMAGE_NAME_PATTERN, readGeneratedImage } from '../../adapters/openai-image/generated-image-store.js';
import { ApiError } from '../../schemas/common.js';
import type { ControlCenter } from '../../services/control-center.js';
import { WorkspaceParams } from './workspace-routes.js';

/**
 * `GET /api/workspaces/:workspaceId/images/:name` (RLY-7, OpenAI Image): a generated image the
 * workspace stored, for the conversation's `<img>` (the operator's session cookie authenticates it).
 * The name is only ever one of our content hashes; the bytes were checked when stored, and are served
 * with their own type, `nosniff` and a CSP that lets nothing in them run.
 */
export function imageRoutes(app: ControlCenter): FastifyPluginAsyncZod {
  return async (server) => {
    server.get(
      '/api/workspaces/:workspaceId/images/:name',
      {
        config: { access: 'operator', role: 'viewer' },
        schema: { tags: ['conversations'], summary: 'A generated image stored in the workspace', params: WorkspaceParams.extend({ name: z.string() }), response: { 200: z.unknown().describe('the image bytes (image/png, image/jpeg or image/webp)'), 400: ApiError, 404: ApiError } },
      },
      async (request, reply) => {
        const { workspaceId, name } = request.params;
        if (!IMAGE_NAME_PATTERN.test(name)) return reply.code(400).send({ error: { code: 'bad_request', message: 'name must be a stored image name (<sha256>.png|jpg|webp)', field: 'name' } });
        const handle = await app.workspaces.handle(workspaceId);
        const image = await readGeneratedImage(handle.dir, name);
        if (!image) return reply.code(404).send({ error: { code: 'not_found', message: `no image named ${name} in this workspace`, field: 'name' } });
        return reply
          .header('content-type', image.contentType)
          .header('x-content-type-options', 'nosniff')
          .header('content-security-policy', "default-src 'none'; sandbox")
          .header('cache-control', 'private, max-age=31536000, immutable')
          .send(image.bytes);
      },
    );
  };
}
