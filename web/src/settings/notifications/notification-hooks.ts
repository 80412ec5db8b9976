import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { CreateChannelBody, NotificationChannel, NotificationDelivery, NotificationKind } from '@server/schemas/notifications';
import { api } from '../../api/client';

export type { CreateChannelBody, NotificationChannel, NotificationDelivery, NotificationKind };

const CHANNELS = '/api/people/me/notification-channels';
const channelsKey = ['people', 'me', 'notification-channels'] as const;
const deliveriesKey = ['people', 'me', 'notification-deliveries'] as const;

/** NTF-1: the signed-in person's channels (secrets only as set / not set). */
export function useNotificationChannels() {
  return useQuery({ queryKey: channelsKey, queryFn: () => api.get<{ channels: NotificationChannel[] }>(CHANNELS), retry: false });
}

/** The delivery log; refreshed every few seconds while the page is open, since retries land later. */
export function useNotificationDeliveries() {
  return useQuery({ queryKey: deliveriesKey, queryFn: () => api.get<{ deliveries: NotificationDelivery[] }>('/api/people/me/notification-deliveries?limit=50'), retry: false, refetchInterval: 3_000 });
}

function useRefreshing<TVariables, TResult>(mutationFn: (variables: TVariables) => Promise<TResult>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn,
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: channelsKey });
      void client.invalidateQueries({ queryKey: deliveriesKey });
    },
  });
}

export function useCreateChannel() {
  return useRefreshing((body: CreateChannelBody) => api.post<NotificationChannel & { signingSecret?: string }>(CHANNELS, body));
}

export function useUpdateChannelEvents() {
  return useRefreshing(({ channelId, events }: { channelId: string; events: NotificationKind[] }) => api.patch<NotificationChannel>(`${CHANNELS}/${encodeURIComponent(channelId)}`, { events }));
}

export function useDeleteChannel() {
  return useRefreshing((channelId: string) => api.delete<null>(`${CHANNELS}/${encodeURIComponent(channelId)}`));
}

export function useTestChannel() {
  return useRefreshing((channelId: string) => api.post<NotificationDelivery>(`${CHANNELS}/${encodeURIComponent(channelId)}/test`, {}));
}
