import { Component, type ErrorInfo, type ReactNode } from 'react';

interface State {
  error: Error | null;
}

/** Keeps one broken view (say, an unexpected response shape) from blanking the whole app. */
export class ErrorBoundary extends Component<{ children: ReactNode; what?: string }, State> {
  override state: State = { error: null };

  static getDerivedStateFromError(error: Error): State {
    return { error };
  }

  override componentDidCatch(error: Error, info: ErrorInfo): void {
    console.error(`[control-center] ${this.props.what ?? 'view'} failed`, error, info.componentStack);
  }

  override render() {
    if (!this.state.error) return this.props.children;
    return (
      <div className="state state-error" role="alert" data-testid="view-crashed">
        <strong>Something in {this.props.what ?? 'this view'} went wrong</strong>
        <div className="muted">{this.state.error.message}</div>
        <button type="button" className="btn btn-small" onClick={() => this.setState({ error: null })}>
          Try again
        </button>
      </div>
    );
  }
}
