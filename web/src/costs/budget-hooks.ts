import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { BudgetAlert, BudgetDecisionBody, PriceTable, SetSpendLimitBody, SpendGrouping, SpendLimit, SpendRow } from '@server/schemas/budget';
import { api, getToken } from '../api/client';
import { keys } from '../api/keys';

export type { BudgetAlert, PriceTable, SpendGrouping, SpendLimit, SpendRow };

const base = (ws: string) => `/api/workspaces/${encodeURIComponent(ws)}/budgets`;

/** BUD-1 queries live under the workspace's key, so a `budget.alert` event refreshes them all. */
const budgetKeys = {
  all: (ws: string) => [...keys.workspace(ws), 'budgets'] as const,
  alerts: (ws: string) => [...keys.workspace(ws), 'budgets', 'alerts'] as const,
  limits: (ws: string) => [...keys.workspace(ws), 'budgets', 'limits'] as const,
  prices: (ws: string) => [...keys.workspace(ws), 'budgets', 'prices'] as const,
  spend: (ws: string, by: SpendGrouping, from: string, to: string) => [...keys.workspace(ws), 'budgets', 'spend', by, from, to] as const,
};

/** Budget decisions and threshold alerts still open (the Inbox). */
export function useOpenBudgetAlerts(ws: string) {
  return useQuery({ queryKey: budgetKeys.alerts(ws), queryFn: () => api.get<{ alerts: BudgetAlert[] }>(`${base(ws)}/alerts?state=open`), retry: false });
}

export function useDecideBudget(ws: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id: string; body: BudgetDecisionBody }) => api.post<BudgetAlert>(`${base(ws)}/alerts/${encodeURIComponent(id)}/decision`, body),
    onSuccess: () => void client.invalidateQueries({ queryKey: budgetKeys.all(ws) }),
  });
}

export function useSpendLimits(ws: string) {
  return useQuery({ queryKey: budgetKeys.limits(ws), queryFn: () => api.get<{ limits: SpendLimit[] }>(`${base(ws)}/limits`), retry: false });
}

export function useSetSpendLimit(ws: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: Partial<SetSpendLimitBody> & Pick<SetSpendLimitBody, 'period' | 'limitUsd'>) => api.put<SpendLimit>(`${base(ws)}/limits`, body),
    onSuccess: () => void client.invalidateQueries({ queryKey: budgetKeys.all(ws) }),
  });
}

export function useRemoveSpendLimit(ws: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api.delete<null>(`${base(ws)}/limits/${encodeURIComponent(id)}`),
    onSuccess: () => void client.invalidateQueries({ queryKey: budgetKeys.all(ws) }),
  });
}

export function usePriceTable(ws: string) {
  return useQuery({ queryKey: budgetKeys.prices(ws), queryFn: () => api.get<PriceTable>(`${base(ws)}/prices`), retry: false, staleTime: 60 * 60 * 1000 });
}

export function useSpend(ws: string, by: SpendGrouping, from: string, to: string) {
  return useQuery({
    queryKey: budgetKeys.spend(ws, by, from, to),
    queryFn: () => api.get<{ rows: SpendRow[] }>(`${base(ws)}/spend?by=${by}&from=${from}&to=${to}`),
    retry: false,
  });
}

/** Downloads the spend rows as CSV: fetched with the operator's token (a plain link would carry none), saved as a file. */
export async function downloadSpendCsv(ws: string, by: SpendGrouping, from: string, to: string): Promise<void> {
  const token = getToken();
  const response = await fetch(`${base(ws)}/spend.csv?by=${by}&from=${from}&to=${to}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  if (!response.ok) throw new Error(`the CSV export failed: HTTP ${response.status}`);
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = `spend-by-${by}-${from}-${to}.csv`;
  link.click();
  URL.revokeObjectURL(url);
}
